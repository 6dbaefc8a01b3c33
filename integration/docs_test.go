package integration

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocsShowTheExample checks that docs/dockertest.md shows the example
// test, its scenario and its server helper exactly as example_test.go runs
// them.
func TestDocsShowTheExample(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../docs/dockertest.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, re := range []string{
		"(?ms)^func TestCreateShipmentSurvivesLostReply.*?^}\n",
		"(?ms)^const lostReply = `.*?^`\n",
		"(?ms)^func startShippingServer.*?^}\n",
	} {
		block := regexp.MustCompile(re).Find(src)
		if block == nil {
			t.Fatalf("example_test.go has no %s", re)
		}
		if !strings.Contains(string(doc), string(block)) {
			t.Errorf("docs/dockertest.md does not show verbatim:\n%s", block)
		}
	}
	test := regexp.MustCompile("(?ms)^func TestCreateShipmentSurvivesLostReply.*?^}\n").Find(src)
	if n := strings.Count(string(test), "\n"); n >= 20 {
		t.Errorf("the example test is %d lines; the docs promise fewer than 20", n)
	}
}
