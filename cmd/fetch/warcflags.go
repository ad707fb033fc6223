package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/warc"
)

// warcOptions are the archival flags of "fetch get" and "fetch mirror".
type warcOptions struct {
	file    string   // --warc-file NAME
	maxSize string   // --warc-max-size SIZE
	cdx     bool     // --warc-cdx
	dedup   []string // --warc-dedup CDXJ
}

func addWARCFlags(f *pflag.FlagSet, o *warcOptions) {
	f.StringVar(&o.file, "warc-file", "", "also record every transfer in `NAME`.warc.gz (WARC 1.1, gzip per record)")
	f.StringVar(&o.maxSize, "warc-max-size", "", "start a new WARC file (NAME-00001.warc.gz, ...) past `SIZE` bytes (suffix K, M or G)")
	f.BoolVar(&o.cdx, "warc-cdx", false, "write a CDXJ index (pywb's format) beside each WARC file")
	f.StringArrayVar(&o.dedup, "warc-dedup", nil, "write a revisit record for content already in the CDXJ index `FILE` (repeatable)")
}

// open creates the writer of o, or returns nil when --warc-file is not
// given.
func (o *warcOptions) open(e *env, red *redactor) (*warc.Writer, error) {
	if o.file == "" {
		if o.maxSize != "" || o.cdx || len(o.dedup) > 0 {
			return nil, flagErrorf("--warc-max-size, --warc-cdx and --warc-dedup need --warc-file")
		}
		return nil, nil
	}
	size, err := parseSize(o.maxSize)
	if err != nil {
		return nil, flagErrorf("--warc-max-size %q: %v", o.maxSize, err)
	}
	name := strings.TrimSuffix(strings.TrimSuffix(o.file, ".gz"), ".warc")
	w, err := warc.Create(warc.Options{
		Name:        name,
		MaxSize:     size,
		CDX:         o.cdx,
		Dedup:       o.dedup,
		Software:    "fetch " + versionString(),
		CommandLine: commandLine(e.args, red),
		TempDir:     filepath.Dir(name),
	})
	if err != nil {
		return nil, err
	}
	// Not silent, even with -s: those files hold records that no index
	// lists, and a mirror's manifest may count on them.
	for _, f := range w.Unfinished() {
		fmt.Fprintf(e.err, "fetch: warning: %s was left open by a run that did not finish: it holds that run's records (the last one may be cut) and has no index; keep it with the archive (new records go to another file)\n", f)
	}
	return w, nil
}

// commandLine is args as one line, every URL's password replaced.
func commandLine(args []string, red *redactor) string {
	out := make([]string, 0, len(args)+1)
	out = append(out, "fetch")
	for _, a := range args {
		if strings.Contains(a, "://") {
			a = safety.Redact(a)
		}
		out = append(out, red.redact(a))
	}
	return strings.Join(out, " ")
}

// closeWARC closes c's WARC writer, reporting a failure in *err when the
// command has none of its own.
func closeWARC(c *fetch.Client, e *env, err *error) {
	if c.WARC == nil {
		return
	}
	if cerr := c.WARC.Close(); cerr != nil {
		fmt.Fprintf(e.err, "fetch: %v\n", cerr)
		if *err == nil {
			*err = &exitError{code: fetch.ExitError}
		}
	}
	if n, uris := c.WARC.Dropped(); n > 0 {
		// Transfers the archive lacks: each failed (and was reported)
		// or was closed before its end. Said even with -s, and the run
		// is partial.
		more := ""
		if n > len(uris) {
			more = fmt.Sprintf(" and %d more", n-len(uris))
		}
		fmt.Fprintf(e.err, "fetch: warning: %d transfer(s) not archived in the WARC file, not read to their end: %s%s\n", n, strings.Join(uris, ", "), more)
		if *err == nil {
			*err = &exitError{code: fetch.ExitPartial}
		}
	}
}

// parseSize reads --warc-max-size: a byteSize above 0. Empty means 0.
func parseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := parseByteSize(s)
	if err == nil && n == 0 {
		err = errors.New("want a positive number of bytes")
	}
	return n, err
}
