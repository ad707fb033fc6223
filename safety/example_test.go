package safety_test

import (
	"errors"
	"fmt"
	"net"

	"github.com/rfc1738/fetch/proto/gopher"
	"github.com/rfc1738/fetch/safety"
)

func ExampleCheckString() {
	// The gopher driver says what it writes of a URL: the selector.
	_, findings := safety.CheckString("gopher://127.0.0.1:25/1a%0d%0aQUIT", safety.Policy{Wire: &gopher.Driver{}})
	for _, f := range findings {
		fmt.Println(f.Level, f.Rule, "-", f.Component)
	}
	// Output:
	// error port-other-protocol - port
	// error encoded-crlf - gopher selector
}

func ExamplePolicy_Evaluate() {
	u, _ := safety.CheckString("ftp://joe:secret@127.0.0.1:6379/x", safety.Policy{})
	_, err := safety.Policy{}.Evaluate(u)
	fmt.Println(errors.Is(err, safety.ErrRefused))
	var re *safety.RefusedError
	if errors.As(err, &re) {
		fmt.Println(re.URL, re.Rules())
	}
	// Output:
	// true
	// ftp://joe:xxxxx@127.0.0.1:6379/x [port-other-protocol]
}

func ExamplePolicy_Control() {
	d := net.Dialer{Control: safety.Policy{DenyPrivate: true}.Control}
	_, err := d.Dial("tcp", "127.0.0.1:9")
	fmt.Println(errors.Is(err, safety.ErrPrivateAddress))
	// Output:
	// true
}

func ExampleRedact() {
	fmt.Println(safety.Redact("ftp://joe:se/cret@h:99999/x"))
	// Output:
	// ftp://joe:xxxxx@h:99999/x
}
