package reader

import "testing"

// TestLanguageIgnoresTokens: letters glued to digits are pieces of an
// identifier or a token, not words of a language; prose around them
// decides.
func TestLanguageIgnoresTokens(t *testing.T) {
	for _, tc := range []struct {
		text    string
		english bool
	}{
		{"upstream error: POST (Authorization: Bearer q3ZpX1r9aK0vT7nWm2sLd8fYb4cHe6gJu5oPi1xNw0E) -> timeout after 30s", true},
		{"request a1e2b3 failed: timeout", true},
		{"La richiesta non è stata elaborata: riprova più tardi, il servizio di pagamento è lento.", false},
		{"Die Zahlung 4711 wurde nicht verarbeitet, bitte später erneut versuchen.", false},
	} {
		if got, _ := isEnglishWords(asciiLower(tc.text)); got != tc.english {
			t.Errorf("%q: english %v, want %v", tc.text, got, tc.english)
		}
	}
}
