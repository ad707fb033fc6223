package retry_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/retry"
)

// A loop that tries an operation again while its failure is transient and
// the policy allows another attempt, waiting the policy's backoff between.
func ExamplePolicy() {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	attempts := 0
	op := func() error { // refused twice, then it works
		attempts++
		if attempts <= 2 {
			return refused
		}
		return nil
	}

	p := retry.Policy{Max: 3, Base: time.Millisecond}
	ctx := context.Background()
	start := time.Now()
	err := op()
	for n := 1; err != nil && retry.Transient(err); n++ {
		d := p.Delay(n, err)
		if !p.Allow(n, start, d) {
			break
		}
		fmt.Printf("attempt %d failed (%v); retry %d of %d\n", n, err, n, p.Max)
		if werr := retry.Wait(ctx, d); werr != nil {
			err = werr
			break
		}
		err = op()
	}
	fmt.Println("result:", err, "after", attempts, "attempts")
	// Output:
	// attempt 1 failed (dial tcp: connect: connection refused); retry 1 of 3
	// attempt 2 failed (dial tcp: connect: connection refused); retry 2 of 3
	// result: <nil> after 3 attempts
}

// Transient sorts failures into those worth another attempt and those that
// would fail the same way.
func ExampleTransient() {
	for _, err := range []error{
		&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)},
		&retry.SpeedError{Limit: 1000, Time: 30 * time.Second, Rate: 12},
		fmt.Errorf("ftp: RETR x: %w", proto.ErrNotFound),
		fmt.Errorf("ftp: login: %w", proto.ErrLogin),
		context.Canceled,
	} {
		fmt.Printf("%-5v %v\n", retry.Transient(err), err)
	}
	// Output:
	// true  dial tcp: connect: connection refused
	// true  transfer too slow: 12 bytes/s for 30s, below the limit of 1000 bytes/s
	// false ftp: RETR x: not found
	// false ftp: login: login failed
	// false context canceled
}
