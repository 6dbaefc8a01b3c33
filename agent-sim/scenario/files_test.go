package scenario

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/config"
)

func TestFilesErrors(t *testing.T) {
	head := "server:\n  command: [srv, '{{ file \"cfg\" }}']\nsteps: [{tool: a}]\n"
	tests := []struct{ name, body, want string }{
		{"undeclared in server", "files: {other: x}\n", `files.yaml:2: server.command[1]: template: error calling file: "cfg" is not declared under files (declared: other)`},
		{"no files", "", `"cfg" is not declared under files (none is)`},
		{"bad name", "files: {../cfg: x}\n", `files.yaml:4: files.../cfg: "../cfg" is not a file name`},
		{"dot name", "files: {.cfg: x}\n", `is not a file name`},
		{"bad template", "files:\n  cfg: '{{ upstream \"db\" }}'\n", `files.yaml:5: files.cfg: template: error calling upstream: "db" is not declared under upstreams`},
		{"not text", "files:\n  cfg: {a: 1}\n", `files.yaml:5: files.cfg`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("files.yaml", []byte(head+tt.body))
			var ce *config.Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want *config.Error containing %q", err, tt.want)
			}
		})
	}
}
