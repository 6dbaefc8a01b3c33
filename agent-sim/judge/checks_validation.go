package judge

import (
	"fmt"
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
)

// JSON-RPC codes MC011 grades.
const (
	codeInvalidParams = -32602
	codeInternalError = -32603
)

// isErrorPreferredSince is the first protocol version whose specification
// prefers input-validation failures as isError results. Versions are
// dates, so they compare as strings.
const isErrorPreferredSince = "2025-11-25"

// checkValidation is MC011: a call the scenario marked as invalid input
// must fail in the channel the negotiated version asks for. The grading,
// from the reading: a schema violation is the client program's business
// (-32602), but from 2025-11-25 the specification prefers an isError
// result so the model can correct its arguments. -32603 says "the server
// broke", which is false, in every version.
func checkValidation(j *judgeRun, info CheckInfo) []Finding {
	var out []Finding
	v := j.in.ProtocolVersion
	newer := v >= isErrorPreferredSince
	for i := range j.in.Calls {
		c := &j.in.Calls[i]
		if !j.in.ValidationCalls[c.N] {
			continue
		}
		sev, why := gradeValidation(*c, v, newer)
		if sev == "" {
			continue
		}
		out = append(out, finding(info, sev, c, "", fmt.Sprintf("%s for invalid input under protocol %s: %s", callRef(*c), versionName(v), why)))
	}
	return out
}

// gradeValidation returns the severity ("" for right) and the reason.
func gradeValidation(c transcript.Call, version string, newer bool) (Severity, string) {
	switch c.Channel {
	case transcript.ChannelToolError:
		if version != "" && !newer {
			return SeverityInfo, "an isError result is acceptable, but this version names JSON-RPC -32602 for arguments that violate the schema"
		}
		return "", ""
	case transcript.ChannelProtocolError:
		switch c.Code {
		case codeInvalidParams:
			if newer {
				return SeverityInfo, "-32602 is tolerated, but this version prefers an isError result the model can correct itself from"
			}
			return "", ""
		case codeInternalError:
			return SeverityError, "-32603 (internal error) claims the server broke; invalid arguments are -32602 or an isError result"
		}
		return SeverityError, fmt.Sprintf("code %d is not the invalid-params code -32602", c.Code)
	case transcript.ChannelSuccess:
		return SeverityError, "the server reported success for arguments the scenario marked invalid"
	}
	return SeverityError, "no validation answer came back (" + string(c.Channel) + ")"
}

// versionName renders a protocol version for evidence.
func versionName(v string) string {
	if v == "" {
		return "unknown version"
	}
	return v
}
