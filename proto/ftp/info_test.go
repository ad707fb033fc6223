package ftp

import (
	"slices"
	"testing"

	"github.com/rfc1738/fetch/proto"
)

// TestInfoAccessors checks that TypeOf and NotesOf read what the driver
// records (retrieve, setListingInfo), so that no caller reads its keys.
func TestInfoAccessors(t *testing.T) {
	data := &proto.Response{Info: map[string]any{"ftp_type": "A", "ftp_type_guessed": true}}
	if typ, guessed := TypeOf(data); typ != "A" || !guessed {
		t.Errorf("TypeOf(guessed text) = %q, %v, want A, true", typ, guessed)
	}
	if typ, guessed := TypeOf(&proto.Response{}); typ != "" || guessed {
		t.Errorf("TypeOf(no info) = %q, %v, want \"\", false", typ, guessed)
	}
	list := &proto.Response{Info: map[string]any{"ftp_listing": formatNLST}}
	setListingInfo(list.Info, []string{"?"}, listNotes{truncated: "451 cut", fallback: true})
	n := NotesOf(list)
	if n.Format != formatNLST || !slices.Equal(n.Unparsed, []string{"?"}) || !n.NLSTFallback || n.Truncated != "451 cut" {
		t.Errorf("NotesOf = %+v", n)
	}
	if n := NotesOf(data); n.Format != "" || n.Unparsed != nil {
		t.Errorf("NotesOf(data) = %+v, want zero", n)
	}
}
