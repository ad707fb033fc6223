module github.com/rfc1738/fetch

go 1.26.8

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.4
	github.com/fclairamb/ftpserverlib v0.25.0
	github.com/klauspost/compress v1.18.0
	github.com/mattn/go-runewidth v0.0.16
	github.com/nlnwa/gowarc/v2 v2.2.4
	github.com/spf13/afero v1.11.0
	github.com/spf13/cobra v1.8.1
	github.com/spf13/pflag v1.0.5
	github.com/vbauerster/mpb/v8 v8.8.3
	github.com/ziutek/telnet v0.1.0
	golang.org/x/net v0.44.0
	golang.org/x/sys v0.36.0
	golang.org/x/term v0.35.0
)

require (
	github.com/VividCortex/ewma v1.2.0 // indirect
	github.com/acarl005/stripansi v0.0.0-20180116102854-5a71ef0e047d // indirect
	github.com/bits-and-blooms/bitset v1.24.0 // indirect
	github.com/fclairamb/go-log v0.5.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/nlnwa/whatwg-url v0.6.2 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/text v0.29.0 // indirect
)
