package mailto_test

import (
	"context"
	"fmt"
	"io"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/mailto"
	"github.com/rfc1738/fetch/uri"
)

// A mailto URL names an address, not an object: the Driver sends no mail
// and returns advice, a line for a person and the decoded address in Info.
func ExampleDriver_Fetch() {
	var d mailto.Driver
	resp, err := d.Fetch(context.Background(), uri.MustParse("mailto:info%40example.org"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Print(string(b))
	fmt.Println(resp.Kind == proto.KindAdvisory, resp.Info["address"])
	// Output:
	// mail address: info@example.org (fetch does not send mail)
	// true info@example.org
}
