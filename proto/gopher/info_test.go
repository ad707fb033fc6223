package gopher

import (
	"slices"
	"testing"

	"github.com/rfc1738/fetch/proto"
)

// TestInfoAccessors checks that AttributesOf and UnparsedOf read what the
// driver records, so that no caller reads its keys.
func TestInfoAccessors(t *testing.T) {
	resp := &proto.Response{Info: map[string]any{"attributes": []Attributes{{}}, InfoUnparsed: []string{"x"}}}
	if a, ok := AttributesOf(resp); !ok || len(a) != 1 {
		t.Errorf("AttributesOf = %v, %v, want one block, true", a, ok)
	}
	if got := UnparsedOf(resp); !slices.Equal(got, []string{"x"}) {
		t.Errorf("UnparsedOf = %q", got)
	}
	if _, ok := AttributesOf(&proto.Response{}); ok {
		t.Error("AttributesOf(no info) reports attributes")
	}
}
