package fetch_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/internal/testrig/wirecount"
)

// A re-run of Client.Mirror checks the FTP files whose listed minute may
// not have closed when they were fetched with one write of their MDTM
// commands (the mirror fetcher is a mirror.ModTimer), and fetches none
// of them when MDTM gives no later time.
func TestMirrorMDTMBatch(t *testing.T) {
	mem := afero.NewMemMapFs()
	at := time.Now().Add(-time.Hour).UTC().Truncate(time.Minute).Add(10 * time.Second)
	const n = 4
	for i := range n {
		name := fmt.Sprintf("/pub/f%d.txt", i)
		afero.WriteFile(mem, name, []byte(name), 0o644)
		mem.Chtimes(name, at, at)
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{DisableMLSD: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	d := &wirecount.Writes{Verb: "MDTM"}
	c := &fetch.Client{Dial: d.Dial}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	for run, want := range []int{n, 0} {
		sum, err := c.Mirror(ctx, "ftp://"+srv.Addr()+"/pub/", dir, fetch.MirrorOptions{Jobs: 2})
		if err != nil || sum.New != want || sum.New+sum.Unchanged != n {
			t.Fatalf("run %d: %v, %+v", run+1, err, sum)
		}
	}
	if got := d.Counts(); !slices.Equal(got, []int{n}) {
		t.Errorf("MDTM commands in writes of %v, want all %d of the re-run in one", got, n)
	}
}
