package reader

import "strings"

// secretValue reports whether a value found where a credential goes (after
// "token:", in a URL's userinfo) can be one. Left out: placeholders of a
// format ("postgres://user:password@host"), redactions (":****@",
// "<token>", "${DB_PASSWORD}"), and names made of words ("Secret:
// orders-db-credentials-v2" names a Kubernetes Secret, it is not its
// value). A credential is random: some part of it mixes letters and
// digits, or it is a long run with no separator.
func secretValue(v string) bool {
	if v == "" || strings.ContainsAny(v[:1], "<{$%[(") || strings.Contains(v, "...") {
		return false
	}
	if strings.Trim(v, "*xX•#") == "" {
		return false
	}
	switch strings.ToLower(v) {
	case "password", "passwd", "pass", "pwd", "pw", "secret", "token", "redacted", "hidden", "masked":
		return false
	}
	for _, seg := range strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if len(seg) > 3 && hasDigitAndLetter(seg) {
			return true
		}
	}
	// No part mixes letters and digits: a name of words ("prod-db-v2")
	// unless it is one long run, as a password of letters can be.
	return !strings.ContainsAny(v, "-_.") && len(v) >= 8
}

// afterHTTPMethod reports whether before ends with an HTTP method and a
// space ("GET ", "[POST "): what follows is a request's path.
func afterHTTPMethod(before string) bool {
	before = strings.TrimRight(before, " ")
	i := strings.LastIndexFunc(before, func(r rune) bool { return r < 'A' || r > 'Z' })
	switch before[i+1:] {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS":
		return true
	}
	return false
}
