package integration

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocsShowTheExamples checks that docs/dockertest.md shows the example
// tests of both layouts, their scenarios and helpers, and the two go-sdk
// registrations exactly as the tests compile and run them.
func TestDocsShowTheExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/dockertest.md")
	if err != nil {
		t.Fatal(err)
	}
	for file, blocks := range map[string][]string{
		"example_test.go": {
			"(?ms)^func TestCreateShipmentSurvivesLostReply.*?^}\n",
			"(?ms)^const lostReply = `.*?^`\n",
			"(?ms)^func startShippingServer.*?^}\n",
		},
		"example_host_test.go": {
			"(?ms)^func TestCreateOrderOnHostSurvivesLostReply.*?^}\n",
			"(?ms)^const lostOrderReply = `.*?^`\n",
			"(?ms)^func serveOnHost.*?^}\n",
		},
		"gosdk_test.go": {
			"(?ms)^func registerRaw.*?^}\n",
			"(?ms)^func registerTyped.*?^}\n",
		},
	} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range blocks {
			block := regexp.MustCompile(re).Find(src)
			if block == nil {
				t.Fatalf("%s has no %s", file, re)
			}
			if !strings.Contains(string(doc), string(block)) {
				t.Errorf("docs/dockertest.md does not show verbatim (from %s):\n%s", file, block)
			}
			if strings.HasPrefix(re, "(?ms)^func Test") {
				if n := strings.Count(string(block), "\n"); n >= 20 {
					t.Errorf("the example test is %d lines; the docs promise fewer than 20", n)
				}
			}
		}
	}
}
