// Package persona is the scripted model and its host. A [HostProfile]
// (swallow, generic, raw, or a user's own) decides what of a call's
// outcome reaches the model ([HostProfile.Observe]) and what the host does
// after a crash; a [Persona] (diligent, stubborn, literal) reads what
// reached the model, through the signals of agent-sim/reader only, and
// decides the next action, recording the rule that fired and the phrase
// that made it fire (docs/personas.md).
//
// Personas are deterministic policies, not models: the same turn gives
// the same decision.
package persona
