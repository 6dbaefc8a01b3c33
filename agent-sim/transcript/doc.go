// Package transcript is the record of a run's calls, shared by everything
// that produces or reads one: what a tools/call produced ([Outcome], on a
// [Channel]), what reached the model ([Observation]), what the reader
// took from the reply ([ReplySignals]), what the persona decided
// ([Decision]), and the facts the driver and the fault layer saw (a
// [Crash], a [LateReply], [UpstreamHold]s, [InjectionRecord]s), gathered
// in one [Call] per tools/call; and the [Tool]s the server listed.
//
// It is the one place a reply is turned into signals ([ReadReply],
// [ReadCall]): the persona and the judge consume signals and never parse
// a reply's text themselves.
//
// It holds data, not machinery: a call recorded anywhere (the simulator's
// driver, or traffic observed elsewhere) is a [Call] the judge can grade.
package transcript
