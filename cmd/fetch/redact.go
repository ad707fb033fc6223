package main

import (
	"bytes"
	"io"
	"sync"

	"github.com/rfc1738/fetch/internal/secret"
	"github.com/rfc1738/fetch/uri"
)

// redactor hides the passwords of the command line's URLs in everything
// the command prints to stderr. The drivers and the client already print
// URLs redacted and passwords as "****"; this is the second line of
// defence. Passwords shorter than four bytes are not searched for (they
// would mask ordinary text) and rely on the first line only.
type redactor struct {
	secrets []string
}

const minSecret = 4

func newRedactor(rawURLs []string) *redactor {
	r := &redactor{}
	for _, raw := range rawURLs {
		if u, err := uri.Parse(raw); err == nil {
			r.add(u)
		}
	}
	return r
}

// redactorOf is newRedactor for the URLs of the command line, already
// parsed.
func redactorOf(args []arg) *redactor {
	r := &redactor{}
	for _, a := range args {
		if a.u != nil {
			r.add(a.u)
		}
	}
	return r
}

// add hides the password of u.
func (r *redactor) add(u *uri.URL) {
	if u.User == nil {
		return
	}
	pw, _ := u.User.Password()
	esc, _ := u.User.EscapedPassword()
	for _, s := range []string{pw, esc} {
		if len(s) >= minSecret {
			r.secrets = append(r.secrets, s)
		}
	}
}

func (r *redactor) redact(s string) string {
	for _, p := range r.secrets {
		s = secret.Hide(s, p)
	}
	return s
}

// writer returns w behind the redactor. Lines are redacted whole: output
// is held until its newline (or Close).
func (r *redactor) writer(w io.Writer) io.Writer {
	if len(r.secrets) == 0 {
		return w
	}
	return &redactingWriter{r: r, w: w}
}

type redactingWriter struct {
	r   *redactor
	w   io.Writer
	mu  sync.Mutex
	buf []byte
}

func (rw *redactingWriter) Write(p []byte) (int, error) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.buf = append(rw.buf, p...)
	i := bytes.LastIndexByte(rw.buf, '\n')
	if i < 0 {
		return len(p), nil
	}
	line := rw.r.redact(string(rw.buf[:i+1]))
	rw.buf = append(rw.buf[:0], rw.buf[i+1:]...)
	if _, err := io.WriteString(rw.w, line); err != nil {
		return 0, err
	}
	return len(p), nil
}
