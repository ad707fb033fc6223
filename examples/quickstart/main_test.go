package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestQuickstart runs the whole example: it must work offline and print the
// refusal and the incremental second runs.
func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	s := out.String()
	for _, want := range []string{
		"A tiny legacy archive",
		"port-other-protocol",
		"encoded-crlf",
		"password-in-url",
		"exit code 4",
		"new 0, updated 0, unchanged 4",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "secret") {
		t.Errorf("the password was printed:\n%s", s)
	}
}
