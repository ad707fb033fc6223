package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/rfc1738/fetch/proto"
)

// ttyPrompt asks the person at the terminal: the question on stderr, the
// answer from stdin (without echo for passwords).
type ttyPrompt struct {
	in  *os.File
	out io.Writer
}

var _ proto.Prompter = (*ttyPrompt)(nil)

func (p *ttyPrompt) Ask(ctx context.Context, prompt string, echo bool) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	fmt.Fprint(p.out, prompt)
	if !echo {
		b, err := term.ReadPassword(int(p.in.Fd()))
		fmt.Fprintln(p.out)
		return string(b), err
	}
	return readLine(p.in)
}

// readLine reads up to a newline, a byte at a time, so that nothing after
// the answer is consumed.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	buf := make([]byte, 1)
	for b.Len() < 4096 {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				break
			}
			b.WriteByte(buf[0])
		}
		if err != nil {
			if err == io.EOF && b.Len() > 0 {
				break
			}
			return "", err
		}
	}
	return strings.TrimSuffix(b.String(), "\r"), nil
}
