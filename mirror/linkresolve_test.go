package mirror

import (
	"errors"
	"os"
	"testing"
)

// TestLinkResolveAlone resolves single links in an empty tree, where a
// target reads as it leads: a name not on disk is passed as a directory.
func TestLinkResolveAlone(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, tc := range []struct {
		rel, target string
		want        error
	}{
		{"a", "b", nil},
		{"d/a", "../b", nil},
		{"d/a", "../../b", errLinkOutside},
		{"a", "/etc", errLinkOutside},
		{"a", "..", errLinkOutside},
		{"d/a", "..", nil},
		{"a", "x/../../y", errLinkOutside},
		{"a", "", errLinkOutside},
		{"a", `..\x`, errLinkOutside},
		{"a", ".fetch", errLinkState},
		{"a", ".FETCH/manifest.json", errLinkState},
		{"d/a", "../.fetch/partial", errLinkState},
		{"d/a", "x/.fetch", nil},
		{"a", "a", errLinkLoop},
	} {
		m := newLinkModel(root)
		m.set(tc.rel, tc.target)
		if got := m.resolve(tc.rel); !errors.Is(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%s -> %q: resolve = %v, want %v", tc.rel, tc.target, got, tc.want)
		}
	}
}

// TestLinkResolveFoldedCase: where the file system takes names that
// differ by case for one (Windows, macOS), a target "x/.." passes
// through the link "X -> ." at the top, and leads out.
func TestLinkResolveFoldedCase(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, fold := range []bool{false, true} {
		defer func(was bool) { foldCase = was }(foldCase)
		foldCase = fold
		m := newLinkModel(root)
		m.set("X", ".")
		m.set("e", "x/..")
		var want error
		if fold {
			want = errLinkOutside
		}
		if got := m.resolve("e"); !errors.Is(got, want) || (got == nil) != (want == nil) {
			t.Errorf("fold %v: resolve(e -> x/..) = %v, want %v", fold, got, want)
		}
	}
}
