package proto

import "github.com/rfc1738/fetch/uri"

// A Viewer is a driver that describes the scheme-specific parts of its
// URLs, the object named after the scheme in `fetch parse` (DESIGN.md,
// "fetch parse --json keys").
type Viewer interface {
	// View returns u's parts, or the error of u's scheme-specific
	// syntax.
	View(u *uri.URL) (View, error)
}

// View is a JSON object that keeps its keys in order. A value that is a
// View is a nested object; a nil *string is null.
type View []Field

// Field is one key of a View.
type Field struct {
	Key   string
	Value any
}

// Nullable is s, or nil (JSON null) when s is empty.
func Nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// A ListingFormer is a driver whose directory responses are printed in a
// form of their own (`fetch get` of a directory, menu or group list).
type ListingFormer interface {
	ListingForm(resp *Response) ListingForm
}

// ListingForm is how a program prints a directory response's entries.
type ListingForm int

// The listing forms; FormLong for a driver that is no ListingFormer.
const (
	FormLong  ListingForm = iota // like ls -l: mode, size, time, name
	FormNames                    // the names alone, one a line
	FormMenu                     // a gopher menu: type, display string, URL
	FormNews                     // a news group list or article summary
)
