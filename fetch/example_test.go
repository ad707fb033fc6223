package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/safety"
)

// A URL aimed at another protocol's port is refused before any look-up or
// connection.
func ExampleClient_Get_refused() {
	var c fetch.Client
	_, err := c.Get(context.Background(), "gopher://127.0.0.1:25/1")
	var re *safety.RefusedError
	fmt.Println(errors.As(err, &re), re.Rules(), fetch.ExitCode(err))
	// Output: true [port-other-protocol] 4
}

func ExampleClient_Get() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "motd")
	os.WriteFile(name, []byte("hello\n"), 0o644)

	var c fetch.Client
	resp, err := c.Get(context.Background(), "file://"+name)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Printf("%q %d bytes\n", b, resp.Size)
	// Output: "hello\n" 6 bytes
}

func ExampleExitCode() {
	var c fetch.Client
	_, err := c.Get(context.Background(), "finger://127.0.0.1/user")
	fmt.Println(fetch.ExitCode(err), errors.Is(err, fetch.ErrUnsupportedScheme))
	_, err = c.Get(context.Background(), "http://a b/")
	fmt.Println(fetch.ExitCode(err))
	// Output:
	// 7 true
	// 3
}
