package ftp

import (
	"testing"

	"github.com/rfc1738/fetch/proto"
)

// TestInfoAccessors checks that TypeOf reads what the driver records
// (retrieve), so that no caller reads its keys.
func TestInfoAccessors(t *testing.T) {
	data := &proto.Response{Info: map[string]any{"ftp_type": "A", "ftp_type_guessed": true}}
	if typ, guessed := TypeOf(data); typ != "A" || !guessed {
		t.Errorf("TypeOf(guessed text) = %q, %v, want A, true", typ, guessed)
	}
	if typ, guessed := TypeOf(&proto.Response{}); typ != "" || guessed {
		t.Errorf("TypeOf(no info) = %q, %v, want \"\", false", typ, guessed)
	}
}
