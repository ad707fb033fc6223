package mailto

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/prototest"
	"github.com/rfc1738/fetch/uri"
)

// TestFetch: RFC 1738 section 3.5.
func TestFetch(t *testing.T) {
	tests := []struct {
		url, address, body string
	}{
		// 3.5: mailto:<rfc822-addr-spec>.
		{"mailto:user@host.example", "user@host.example", "mail address: user@host.example (fetch does not send mail)\n"},
		// 3.5: "%" in an address must be encoded; it is decoded here.
		{"mailto:user%25relay@host.example", "user%relay@host.example", "mail address: user%relay@host.example (fetch does not send mail)\n"},
		// 3.5: no reserved characters: "?" and "&" are part of the address.
		{"mailto:a@b?subject=hi&x", "a@b?subject=hi&x", "mail address: a@b?subject=hi&x (fetch does not send mail)\n"},
		// 2.2: other encoded octets decode too (a quoted local part).
		{"mailto:%22john%20doe%22@host", `"john doe"@host`, `mail address: "john doe"@host (fetch does not send mail)` + "\n"},
		// An address that would drive a terminal is shown quoted.
		{"mailto:a%1B%5B2J@b", "a\x1b[2J@b", `mail address: "a\x1b[2J@b" (fetch does not send mail)` + "\n"},
		// Scheme names are case-insensitive (2.1).
		{"MAILTO:x@y", "x@y", "mail address: x@y (fetch does not send mail)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			resp, err := (&Driver{}).Fetch(t.Context(), uri.MustParse(tt.url), nil)
			if err != nil {
				t.Fatalf("Fetch(%q) = %v", tt.url, err)
			}
			if resp.Kind != proto.KindAdvisory {
				t.Errorf("Fetch(%q).Kind = %v, want KindAdvisory", tt.url, resp.Kind)
			}
			if want := map[string]any{"address": tt.address}; !reflect.DeepEqual(resp.Info, want) {
				t.Errorf("Fetch(%q).Info = %v, want %v", tt.url, resp.Info, want)
			}
			body, _ := io.ReadAll(resp.Body)
			if string(body) != tt.body {
				t.Errorf("Fetch(%q) body = %q, want %q", tt.url, body, tt.body)
			}
			if resp.Size != int64(len(body)) {
				t.Errorf("Fetch(%q).Size = %d, want %d", tt.url, resp.Size, len(body))
			}
			if err := errors.Join(resp.Body.Close(), resp.Body.Close()); err != nil {
				t.Errorf("closing twice: %v", err)
			}
		})
	}
}

// TestFetchErrors: no address is malformed; another scheme is refused.
func TestFetchErrors(t *testing.T) {
	for _, raw := range []string{"mailto:", "telnet://host/"} {
		_, err := (&Driver{}).Fetch(t.Context(), uri.MustParse(raw), nil)
		var ue *uri.Error
		if !errors.As(err, &ue) {
			t.Errorf("Fetch(%q) = %v, want a *uri.Error", raw, err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := (&Driver{}).Fetch(ctx, uri.MustParse("mailto:a@b"), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch with a cancelled context = %v, want context.Canceled", err)
	}
}

// TestFetchUnsafe: an address that decodes to CR, LF or NUL is refused
// (RFC 1738 section 6), with prototest's payloads, built without
// uri.Parse as a careless caller would.
func TestFetchUnsafe(t *testing.T) {
	for _, p := range prototest.Payloads {
		u := &uri.URL{Scheme: "mailto", Opaque: "a@b" + uri.Escape(p, "@")}
		_, err := (&Driver{}).Fetch(t.Context(), u, nil)
		if !errors.Is(err, proto.ErrUnsafeArgument) {
			t.Errorf("Fetch(%q) = %v, want proto.ErrUnsafeArgument", u, err)
		} else if strings.Contains(err.Error(), prototest.Marker) {
			t.Errorf("Fetch(%q): the error repeats the address: %v", u, err)
		}
	}
}

// FuzzFetch: for any mailto URL, Fetch never panics, and the advice is one
// line whatever the address decodes to (no forged output lines, no raw
// control bytes for the terminal).
func FuzzFetch(f *testing.F) {
	for _, s := range []string{"a@b", "a%0D%0Ab@c", "%00", "%1B%5B2J", "a%25b@c?x&y", "%FF%FE@x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := uri.Parse("mailto:" + s)
		if err != nil {
			return
		}
		resp, err := (&Driver{}).Fetch(t.Context(), u, nil)
		if err != nil {
			return
		}
		body, _ := io.ReadAll(resp.Body)
		line := strings.TrimSuffix(string(body), "\n")
		for i := 0; i < len(line); i++ {
			if c := line[i]; c < 0x20 || c == 0x7f {
				t.Fatalf("advice %q holds control byte %#x", body, c)
			}
		}
	})
}
