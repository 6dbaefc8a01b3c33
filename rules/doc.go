// Package rules decides which fault, if any, applies to a connection or an
// exchange on an upstream.
//
// A [Rule] pairs a condition written in expr-lang (the "when" expression,
// evaluated against an [Env]) with a [FaultSpec], a probability, a limit on
// the number of injections, a time to live and an enabled flag. Rules are
// compiled once into a [Set], an immutable, ordered snapshot; a [Table] holds
// the current snapshot behind an atomic pointer so that the data path reads
// it without taking a lock, and closes a channel whenever it is replaced so
// that long-lived connections can notice the change.
//
// The package is pure: it performs no I/O, reads time only through a [Clock]
// and draws every random decision from a seed (see [Decide]), so a run
// printed with its seed can be replayed exactly.
package rules
