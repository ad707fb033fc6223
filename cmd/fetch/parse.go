package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/secret"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

type parseOptions struct {
	urls []string
	json bool
}

func newParseCmd(e *env) *cobra.Command {
	o := &parseOptions{}
	cmd := &cobra.Command{
		Use:   "parse [--json] URL...",
		Short: "Show the components of URLs and their scheme-specific parts",
		Long: `Show each URL's components (scheme, user, password, host, port, default port)
and its scheme-specific parts decoded as RFC 1738 defines them. A password is
never shown: it is null when absent, "" when empty and "xxxxx" otherwise.

With --json each URL is one JSON object on its own line. A malformed URL is
reported with the byte offset of the problem (exit 3).`,
		Example: `  fetch parse --json 'gopher://h/0a%09b%09+'
  fetch parse 'ftp://myname@host.dom/%2Fetc/motd'`,
		Args: minArgs("URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.urls = args
			return runParse(o, e)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "one JSON object per URL")
	return cmd
}

func runParse(o *parseOptions, e *env) error {
	codes := make([]int, 0, len(o.urls))
	for _, raw := range o.urls {
		err := parseOne(raw, o.json, &errWriter{e.out})
		if err != nil {
			fmt.Fprintf(e.err, "fetch: %s\n", message(err))
		}
		codes = append(codes, codeOf(err))
	}
	return exitFor(codes)
}

func parseOne(raw string, asJSON bool, w io.Writer) error {
	u, err := uri.Parse(raw)
	if err != nil {
		return &fetch.Error{Op: "parse", URL: safety.Redact(raw), Err: err}
	}
	obj, err := describe(u)
	if err != nil {
		return &fetch.Error{Op: "parse", URL: u.Redacted(), Err: err}
	}
	if asJSON {
		b, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	return obj.writeText(w, "")
}

// object is a JSON object that keeps its keys in order; a value that is
// a proto.View is a nested object.
type object proto.View

// nested is v, as an object when it is a proto.View.
func nested(v any) any {
	if sub, ok := v.(proto.View); ok {
		return object(sub)
	}
	return v
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Key)
		v, err := json.Marshal(nested(f.Value))
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeText prints one "key: value" line per field, values in JSON form
// (so that "" and null differ), nested objects with dotted keys.
func (o object) writeText(w io.Writer, prefix string) error {
	for _, f := range o {
		if sub, ok := f.Value.(proto.View); ok && len(sub) > 0 {
			if err := object(sub).writeText(w, prefix+f.Key+"."); err != nil {
				return err
			}
			continue
		}
		v, err := json.Marshal(nested(f.Value))
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s%s: %s\n", prefix, f.Key, v); err != nil {
			return err
		}
	}
	return nil
}

// describe is the parse output of u: the common keys of DESIGN.md, then
// one object named after the scheme.
func describe(u *uri.URL) (object, error) {
	obj := object{
		{Key: "scheme", Value: u.Scheme},
		{Key: "user", Value: user(u)},
		{Key: "password", Value: password(u)},
		{Key: "host", Value: u.Host},
		{Key: "port", Value: port(u)},
		{Key: "default_port", Value: defaultPort(u.Scheme)},
	}
	view, err := schemeView(u)
	if err != nil || view == nil {
		return obj, err
	}
	return append(obj, proto.Field{Key: u.Scheme, Value: view}), nil
}

func user(u *uri.URL) *string {
	if u.User == nil {
		return nil
	}
	s := u.User.Username()
	return &s
}

// password is null when absent, "" when empty, "xxxxx" otherwise: the
// password itself is never printed.
func password(u *uri.URL) *string {
	pw, ok := u.User.Password()
	if !ok {
		return nil
	}
	if pw != "" {
		pw = secret.URLMask
	}
	return &pw
}

func port(u *uri.URL) *int {
	if u.Port == "" {
		return nil
	}
	n := u.PortNumber()
	return &n
}

func defaultPort(scheme string) *int {
	n := uri.DefaultPort(scheme)
	if n == 0 {
		return nil
	}
	return &n
}
