package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

func newExtractCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "extract [FILE...]",
		Short: "Print the URLs found in text",
		Long: `Print the URLs found in the text of each FILE (stdin when there is none, or for
"-"), one per line, by the delimiting conventions of the URL specifications:
<URL:...> and <...> wrappers, white space and line breaks inside the brackets
removed, trailing punctuation outside brackets left out. Passwords are printed
as xxxxx.`,
		Example: `  printf 'see <URL:ftp://ds.in\n ternic.net/rfc>.' | fetch extract`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExtract(args, &errWriter{e.out}, e.in)
		},
	}
}

func runExtract(files []string, out io.Writer, in io.Reader) error {
	if len(files) == 0 {
		files = []string{"-"}
	}
	for _, name := range files {
		text, err := readText(name, in)
		if err != nil {
			return err
		}
		for _, s := range uri.Extract(text) {
			if _, err := fmt.Fprintln(out, redactedURL(s)); err != nil {
				return err
			}
		}
	}
	return nil
}

func readText(name string, stdin io.Reader) (string, error) {
	if name == "-" {
		b, err := io.ReadAll(stdin)
		return string(b), err
	}
	b, err := os.ReadFile(name)
	return string(b), err
}

// redactedURL is s with any password replaced by xxxxx.
func redactedURL(s string) string {
	if u, err := uri.Parse(s); err == nil {
		return u.Redacted()
	}
	return safety.Redact(s)
}
