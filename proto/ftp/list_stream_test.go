package ftp

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// List hands an entry over as soon as its line has arrived: the server
// here sends the rest of the listing only once the first entry was seen
// (a listing read whole would have it wait 5 s, and then come whole).
func TestListHandsOverBeforeEnd(t *testing.T) {
	const first = "-rw-r--r-- 1 0 0 5 Feb 03  2001 a\r\n"
	for _, pipe := range []bool{false, true} {
		t.Run(fmt.Sprintf("pipelined=%v", pipe), func(t *testing.T) {
			f := newFake(t)
			f.lists["LIST"] = []byte(first + "-rw-r--r-- 1 0 0 5 Feb 03  2001 b\r\n")
			f.holdAt, f.hold = len(first), make(chan struct{})
			f.start()
			d := New(Config{PipelinePassive: pipe})
			defer d.CloseIdleConnections()
			req := quickReq()
			req.IdleTimeout = 10 * time.Second
			var (
				names []string
				once  sync.Once
			)
			_, err := d.List(t.Context(), uri.MustParse(f.url("/")), req, func(e proto.Entry) error {
				names = append(names, e.Name)
				once.Do(func() { close(f.hold) })
				return nil
			})
			f.mu.Lock()
			released := f.released
			f.mu.Unlock()
			if err != nil || !slices.Equal(names, []string{"a", "b"}) || !released {
				t.Errorf("List = %q, %v; the first entry before the rest was sent: %v", names, err, released)
			}
		})
	}
}

// An error of the caller's function ends the listing, comes back as it
// is, and is not taken for a failed connection to try again.
func TestListCallerError(t *testing.T) {
	f := newFake(t)
	f.lists["LIST"] = []byte("-rw-r--r-- 1 0 0 5 Feb 03  2001 a\r\n-rw-r--r-- 1 0 0 5 Feb 03  2001 b\r\n")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	stop := errors.New("enough")
	n := 0
	_, err := d.List(t.Context(), uri.MustParse(f.url("/")), quickReq(), func(proto.Entry) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("List = %v after %d entries, want the caller's error after 1", err, n)
	}
	if got := listCommands(f); got != "LIST" {
		t.Errorf("LIST commands %q, want one", got)
	}
}

// List gives what Fetch gives, entries and notes, with the same commands,
// where the listing needs more than its lines: the NLST fallback, the
// targets of MLSD's links, LIST -a refused or taken for a name, lines
// that the whole listing decides (German dates), a listing ls could not
// read, one over the listing cap.
func TestListAsFetch(t *testing.T) {
	const file = "-rw-r--r--   1 0 0   10 Feb 03  2001 f.txt\r\n"
	unix := "215 UNIX Type: L8"
	for _, tc := range []struct {
		name  string
		setup func(f *fakeFTP)
		path  string
		req   func(r *proto.Request)
	}{
		{"NLST fallback", func(f *fakeFTP) {
			f.pwds = []string{`257 "/"`, `257 "/pub"`, `257 "/pub/sub"`, `257 "/"`}
			f.lists["LIST"] = []byte("%%% a listing nobody knows %%%\r\nQ a.txt 12\r\nQ sub -\r\n")
			f.lists["NLST"] = []byte("a.txt\r\nsub\r\nup\r\n")
			f.files["a.txt"] = []byte("hello world\n")
			f.replies["CWD a.txt"] = "550 a.txt: not a directory"
		}, "/pub/", nil},
		{"MLSD link targets", func(f *fakeFTP) {
			f.replies["SYST"] = unix
			f.feat = append(f.feat, "MLST type*;size*;modify*;")
			f.lists["MLSD"] = []byte("type=OS.unix=symlink;modify=20010203040506; ln\r\n" +
				"type=file;size=3;modify=20010203040506; f\r\n" +
				"type=OS.unix=slink:/t;modify=20010203040506; known\r\n")
			f.lists["LIST -d ln"] = []byte("lrwxrwxrwx 1 0 0 6 Feb 03  2001 ln -> target\r\n")
		}, "/", nil},
		{"LIST -a refused", func(f *fakeFTP) {
			f.replies["SYST"] = unix
			f.lists["LIST"] = []byte(file)
			f.replies["LIST -a"] = "501 unknown option"
		}, "/", func(r *proto.Request) { r.Options.FTP.ListAll = true }},
		{"LIST -a lists nothing", func(f *fakeFTP) {
			f.replies["SYST"] = unix
			f.lists["LIST -a"] = []byte("")
			f.lists["LIST"] = []byte(file)
		}, "/", func(r *proto.Request) { r.Options.FTP.ListAll = true }},
		{"German dates", func(f *fakeFTP) {
			f.replies["SYST"] = unix
			f.lists["LIST"] = []byte("insgesamt 4\r\n" + file +
				"-rw-r--r-- 1 root root 1  5. Jan 2019  c\r\n-rw-r--r-- 1 root root 1  5. Feb 2019  d\r\n?? odd\r\n")
		}, "/", nil},
		{"lean", func(f *fakeFTP) {
			f.lists["LIST"] = []byte("-rw-r--r--   1 ann staff 10 Feb 03  2001 f.txt\r\n")
		}, "/", func(r *proto.Request) { r.Options.FTP.Lean = true }},
		{"unreadable", func(f *fakeFTP) {
			f.lists["LIST"] = []byte("ls: .: Permission denied\r\n")
		}, "/", nil},
		{"over the cap", func(f *fakeFTP) {
			f.lists["LIST"] = []byte(strings.Repeat(file, 10))
		}, "/", func(r *proto.Request) { r.Options.ListingCap = 100 }},
	} {
		for _, pipe := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/pipelined=%v", tc.name, pipe), func(t *testing.T) {
				var (
					entries [2][]proto.Entry
					notes   [2]*proto.Listing
					errs    [2]error
					wires   [2]string
				)
				for i, stream := range []bool{false, true} {
					f := newFake(t)
					tc.setup(f)
					f.start()
					d := New(Config{PipelinePassive: pipe})
					req := quickReq()
					if tc.req != nil {
						tc.req(req)
					}
					entries[i], notes[i], errs[i] = listVia(t, d, f.url(tc.path), req, stream)
					d.CloseIdleConnections()
					f.mu.Lock()
					// Less the QUIT, which may come after.
					wires[i] = strings.ReplaceAll(f.wire.String(), "QUIT\r\n", "")
					f.mu.Unlock()
				}
				if !slices.Equal(entryKeys(entries[0]), entryKeys(entries[1])) || !reflect.DeepEqual(notes[0], notes[1]) {
					t.Errorf("Fetch: %q %+v\nList:  %q %+v", entryKeys(entries[0]), notes[0], entryKeys(entries[1]), notes[1])
				}
				if (errs[0] == nil) != (errs[1] == nil) || errs[0] != nil && errs[0].Error() != errs[1].Error() {
					t.Errorf("Fetch: %v\nList:  %v", errs[0], errs[1])
				}
				for _, sentinel := range []error{proto.ErrPermission, proto.ErrProtocol} {
					if errors.Is(errs[0], sentinel) != errors.Is(errs[1], sentinel) {
						t.Errorf("errors.Is(%v): Fetch %v, List %v", sentinel, errs[0], errs[1])
					}
				}
				if wires[0] != wires[1] {
					t.Errorf("commands differ:\nFetch:\n%s\nList:\n%s", wires[0], wires[1])
				}
			})
		}
	}
}
