package mirror

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/internal/mbox"
)

// newsArticles opens the news mirror in dir and returns it, its manifest
// and the relative paths of the articles it holds, one per distinct
// article (a crosspost, the same bytes under several groups, once),
// ordered by group and number. The caller closes the root.
func newsArticles(dir string) (*os.Root, *manifest, []string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("mirror: export: %w", err)
	}
	m, err := loadManifest(root, false)
	if err != nil {
		root.Close()
		return nil, nil, nil, err
	}
	var rels []string
	for rel, rec := range m.Files {
		if rec.Link == "" && strings.HasPrefix(rec.URL, "nntp://") {
			rels = append(rels, rel)
		}
	}
	slices.SortFunc(rels, compareArticlePaths)
	seen := map[string]bool{}
	rels = slices.DeleteFunc(rels, func(rel string) bool {
		sum := m.Files[rel].SHA256
		dup := sum != "" && seen[sum]
		seen[sum] = true
		return dup
	})
	return root, m, rels, nil
}

// compareArticlePaths orders group/dir/123 paths by directory, then by
// number.
func compareArticlePaths(a, b string) int {
	da, na := splitArticle(a)
	db, nb := splitArticle(b)
	return cmp.Or(strings.Compare(da, db), cmp.Compare(na, nb), strings.Compare(a, b))
}

func splitArticle(rel string) (string, int64) {
	i := strings.LastIndexByte(rel, '/')
	n, _ := strconv.ParseInt(rel[i+1:], 10, 64)
	return rel[:max(i, 0)], n
}

// ExportMbox writes every article of the news mirror in dir to the mboxrd
// file out, replacing it atomically (a temporary file beside it, renamed),
// and returns how many messages it holds. Crossposts appear once.
func ExportMbox(dir, out string) (int, error) {
	root, _, rels, err := newsArticles(dir)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	var readErr error
	err = replaceFile(out, func(w io.Writer) error {
		var buf []byte
		for _, rel := range rels {
			msg, err := root.ReadFile(rel)
			if err != nil {
				readErr = fmt.Errorf("mirror: export %s: %w", rel, err)
				return readErr
			}
			buf = mbox.Append(buf[:0], msg)
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	})
	switch {
	case readErr != nil:
		return 0, readErr
	case err != nil:
		return 0, fmt.Errorf("mirror: export: %w", err)
	}
	return len(rels), nil
}

// ExportMaildir delivers every article of the news mirror in dir into the
// maildir out (made with tmp/, new/ and cur/ when missing): each is
// written to tmp/ and renamed into new/ under a name made from its
// SHA-256, so that a message already delivered by an earlier export is
// not delivered twice. It returns how many messages it delivered.
func ExportMaildir(dir, out string) (int, error) {
	root, m, rels, err := newsArticles(dir)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	for _, sub := range []string{"tmp", "new", "cur"} {
		if err := os.MkdirAll(filepath.Join(out, sub), 0o700); err != nil {
			return 0, fmt.Errorf("mirror: export: %w", err)
		}
	}
	existing := map[string]bool{}
	for _, sub := range []string{"new", "cur"} {
		ents, _ := os.ReadDir(filepath.Join(out, sub))
		for _, e := range ents {
			base, _, _ := strings.Cut(e.Name(), ":")
			existing[base] = true
		}
	}
	n := 0
	for _, rel := range rels {
		sum := m.Files[rel].SHA256
		if len(sum) < 32 {
			continue
		}
		name := "fetch-" + sum[:32]
		if existing[name] {
			continue
		}
		msg, err := root.ReadFile(rel)
		if err != nil {
			return n, fmt.Errorf("mirror: export %s: %w", rel, err)
		}
		tmp := filepath.Join(out, "tmp", name+"."+strconv.Itoa(os.Getpid()))
		err = os.WriteFile(tmp, msg, 0o600)
		if err == nil {
			err = os.Rename(tmp, filepath.Join(out, "new", name))
		}
		if err != nil {
			os.Remove(tmp)
			return n, fmt.Errorf("mirror: export: %w", err)
		}
		existing[name] = true
		n++
	}
	return n, nil
}
