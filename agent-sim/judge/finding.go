package judge

// Severity ranks findings.
type Severity string

// Severities, from least to most severe.
const (
	SeverityInfo    Severity = "info"
	SeverityWarning Severity = "warning"
	SeverityError   Severity = "error"
)

// Rank orders severities: info 1, warning 2, error 3, unknown 0.
func (s Severity) Rank() int {
	switch s {
	case SeverityInfo:
		return 1
	case SeverityWarning:
		return 2
	case SeverityError:
		return 3
	}
	return 0
}

// Finding is a judged problem.
type Finding struct {
	// ID is the check's stable identifier: MC001…
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	Title    string   `json:"title"`
	// Tool and Call locate it (Call 0: the run as a whole).
	Tool string `json:"tool,omitempty"`
	Call int    `json:"call,omitempty"`
	// Evidence is the exact text, event or count that shows it.
	Evidence string `json:"evidence"`
	// Basis says what the finding rests on: "fact" (the protocol, the
	// side-effect ledger, a fault's declared outcome, a value the run
	// knows is internal), "confident reading" or "tentative reading" of
	// the reply's text, or "unread" (the reply could not be read; the
	// finding is info). Only a fact or a confident reading carries error
	// severity.
	Basis Basis `json:"basis,omitempty"`
	// Hint says how to fix it.
	Hint string `json:"hint"`
	// Baseline is "new" or "known" when the report was compared with a
	// baseline report ([Report.ApplyBaseline]); empty otherwise. Known
	// findings do not count in the summary or the exit code.
	Baseline string `json:"baseline,omitempty"`
}

// Baseline marks of a finding ([Finding.Baseline]).
const (
	BaselineNew   = "new"
	BaselineKnown = "known"
)

// Known reports whether the finding was in the baseline.
func (f Finding) Known() bool { return f.Baseline == BaselineKnown }

// Basis is what a finding rests on (docs/checks.md, "What a finding
// rests on").
type Basis string

// Bases, from the firmest.
const (
	// BasisFact: the protocol (channel, code, annotations), the
	// side-effect ledger, a fault's declared outcome, or a value the run
	// knows is internal.
	BasisFact Basis = "fact"
	// BasisConfident: a confident reading of the reply (a structured
	// field, a canonical phrasing, an unmistakable leak pattern).
	BasisConfident Basis = "confident reading"
	// BasisTentative: a tentative reading, or the absence of a signal in
	// a reply that was read. Never more than a warning.
	BasisTentative Basis = "tentative reading"
	// BasisUnread: the reply could not be read; the finding is info.
	BasisUnread Basis = "unread"
	// BasisUnreadGuidance: the finding would claim guidance is absent,
	// but the reader's trained estimate says the reply probably gives
	// guidance the phrase rules did not read; the finding is info.
	BasisUnreadGuidance Basis = "guidance not read"
)
