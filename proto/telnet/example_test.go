package telnet_test

import (
	"context"
	"fmt"
	"io"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/telnet"
	"github.com/rfc1738/fetch/uri"
)

// A telnet URL names an interactive service: the Driver connects to
// nothing and returns advice naming the service and the suggested user
// (the suggested password is never shown).
func ExampleDriver_Fetch() {
	var d telnet.Driver
	resp, err := d.Fetch(context.Background(), uri.MustParse("telnet://guest:secret@127.0.0.1:2323/"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Print(string(b))
	fmt.Println(resp.Kind == proto.KindAdvisory, resp.Info["user"], resp.Info["password_suggested"])
	// Output:
	// telnet service at 127.0.0.1:2323; suggested user: guest; a password was suggested (not shown)
	// true guest true
}
