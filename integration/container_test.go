package integration

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/ory/dockertest/v3"
)

func TestConfigTar(t *testing.T) {
	const cfg = "upstreams: []\n"
	tr := tar.NewReader(bytes.NewReader(configTar(cfg)))
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Typeflag == tar.TypeReg {
			data, _ := io.ReadAll(tr)
			if string(data) != cfg || h.Mode != 0o444 || h.Uid != UID {
				t.Errorf("%s: mode %o uid %d content %q", h.Name, h.Mode, h.Uid, data)
			}
		}
	}
	if got := strings.Join(names, " "); got != "etc/ etc/mcpchaos/ etc/mcpchaos/config.yaml" {
		t.Errorf("entries %q", got)
	}
}

func TestOptionsDefaults(t *testing.T) {
	t.Setenv(ImageEnv, "")
	o, err := Options{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.Image != DefaultImage || !strings.HasPrefix(o.Name, "mcpchaos-") || len(o.Token) < 16 {
		t.Errorf("defaults %+v", o)
	}
	o2, _ := Options{}.withDefaults()
	if o2.Name == o.Name || o2.Token == o.Token {
		t.Error("two starts share a name or a token")
	}
	t.Setenv(ImageEnv, "mcpchaos:ci")
	if o, _ := (Options{}).withDefaults(); o.Image != "mcpchaos:ci" {
		t.Errorf("$%s ignored: %q", ImageEnv, o.Image)
	}
	if _, err := (Options{Token: "short"}).withDefaults(); err == nil {
		t.Error("a short token was accepted")
	}
	if _, err := (Options{Networks: []*dockertest.Network{nil}}).withDefaults(); err == nil {
		t.Error("a nil network was accepted")
	}
	if _, err := Start(context.Background(), nil, Options{}); err == nil {
		t.Error("a nil pool was accepted")
	}
}
