package gopher

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// headerTests: gopherplus.txt section 2.3 and "DataHead ::= Success
// Transfer CR-LF" of appendix II.
var headerTests = []struct {
	in   string
	want Header
	ok   bool
}{
	{"+5340\r\n", Header{OK: true, Length: 5340}, true},
	{"+-1\r\n", Header{OK: true, Length: LengthDot}, true},
	{"+-2\r\n", Header{OK: true, Length: LengthClose}, true},
	{"+0\r\n", Header{OK: true, Length: 0}, true},
	{"--1\r\n", Header{OK: false, Length: LengthDot}, true},
	{"--2\n", Header{OK: false, Length: LengthClose}, true},
	{"-12", Header{OK: false, Length: 12}, true},
	{"+", Header{}, false},
	{"+-3\r\n", Header{}, false},
	{"+ 5\r\n", Header{}, false},
	{"+5 \r\n", Header{}, false},
	{"++5\r\n", Header{}, false},
	{"+-\r\n", Header{}, false},
	{"5340\r\n", Header{}, false},
	{"+99999999999999999999\r\n", Header{}, false},
	{"+12a\r\n", Header{}, false},
	{"", Header{}, false},
	{"iHello\tsel\th\t70\r\n", Header{}, false},
}

func TestParseHeader(t *testing.T) {
	for _, tt := range headerTests {
		got, err := ParseHeader(tt.in)
		if tt.ok != (err == nil) || got != tt.want {
			t.Errorf("ParseHeader(%q) = %+v, %v; want %+v, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
		var he HeaderError
		if err != nil && !errors.As(err, &he) {
			t.Errorf("ParseHeader(%q) error %T, want HeaderError", tt.in, err)
		}
	}
}

func FuzzParseHeader(f *testing.F) {
	for _, tt := range headerTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		h, err := ParseHeader(in)
		if err != nil {
			if len(err.Error()) > 200 {
				t.Fatalf("error message of %d bytes", len(err.Error()))
			}
			return
		}
		if h.Length < LengthClose {
			t.Fatalf("ParseHeader(%q).Length = %d", in, h.Length)
		}
		if in[0] == '+' != h.OK {
			t.Fatalf("ParseHeader(%q).OK = %v", in, h.OK)
		}
		// The line is the sign and the length, leading zeros aside:
		// written back, it parses to the same header.
		back := "-" + strconv.FormatInt(h.Length, 10) + "\r\n"
		if h.OK {
			back = "+" + back[1:]
		}
		if again, err := ParseHeader(back); err != nil || again != h {
			t.Fatalf("ParseHeader(%q) = %+v; written back as %q: %+v, %v", in, h, back, again, err)
		}
		if digits := strings.TrimRight(in[1:], "\r\n"); h.Length >= 0 && strings.TrimLeft(digits, "0") != strings.TrimLeft(back[1:len(back)-2], "0") {
			t.Fatalf("ParseHeader(%q).Length = %d", in, h.Length)
		}
	})
}

// The example of gopherplus.txt section 2.5 ("F" written as TAB).
const infoExample = "+INFO: 0Some file or other\tmoo selector\thost2\tport2\t+\r\n" +
	"+ADMIN:\r\n" +
	" Admin: Frodo Gophermeister <fng@bogus.edu>\r\n" +
	" Mod-Date: Wed Jul 28 17:02:01 1993 <19930728170201>\r\n" +
	"+VIEWS:\r\n" +
	" Text/plain: <10k>\r\n" +
	" application/postscript: <100k>\r\n" +
	" Text/plain De_DE: <15k>\r\n" +
	" application/MacWriteII: <45K>\r\n" +
	"+ABSTRACT:\r\n" +
	" This is a short (but multi-line) abstract about the\r\n" +
	" item. Two or three lines ought to be enough\r\n"

// The example of gopherplus.txt section 2.7 (a "$" response).
const dollarExample = "+INFO: 0Salmon dogs\tsome selector\thost2\t70\t+\r\n" +
	"+ADMIN:\r\n" +
	" Admin: Frodo Gophermeister <fng@bogus.edu>\r\n" +
	" Mod-Date: August 15, 1992 <19920815185503>\r\n" +
	"+VIEWS:\r\n" +
	" Text/plain: <10k>\r\n" +
	" application/Postscript De_DE: <100k>\r\n" +
	"+ABSTRACT:\r\n" +
	" A great recipe for making salmon\r\n" +
	"+INFO: 0Hot pups\tother selector\thost3\t71\t+\r\n" +
	"+ADMIN:\r\n" +
	" Admin: Bilbo Gophernovice <bng@bogus.edu>\r\n" +
	" Date: <19910101080003>\r\n"

// The example of gopherplus.txt section 2.8 (an +ASK block).
const askExample = "+INFO: 0inquisitive\tmoo moo selector\thost2\t70\t+\r\n" +
	"+ADMIN:\r\n" +
	" Admin: Frank Gophermeister <fng@bogus.edu>\r\n" +
	" Mod-Date: August 15, 1992 <19920815185503>\r\n" +
	"+ASK:\r\n" +
	" Ask: How many volts?\r\n" +
	" Choose: Deliver electric shock to administrator now?\tYes\tNot!\r\n"

func TestParseAttributesSpec(t *testing.T) {
	got, err := ParseAttributes([]byte(infoExample))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d items, want 1", len(got))
	}
	a := got[0]
	wantInfo := &Item{Type: "0", Display: "Some file or other", Selector: "moo selector", Host: "host2", Plus: "+"}
	if !reflect.DeepEqual(a.Info, wantInfo) {
		t.Errorf("Info = %+v, want %+v", a.Info, wantInfo)
	}
	if a.Admin["Admin"] != "Frodo Gophermeister <fng@bogus.edu>" {
		t.Errorf("Admin = %q", a.Admin["Admin"])
	}
	if want := time.Date(1993, 7, 28, 17, 2, 1, 0, time.UTC); !a.ModTime.Equal(want) {
		t.Errorf("ModTime = %v, want %v", a.ModTime, want)
	}
	wantViews := []View{
		{Type: "Text/plain", Size: "10k"},
		{Type: "application/postscript", Size: "100k"},
		{Type: "Text/plain", Language: "De_DE", Size: "15k"},
		{Type: "application/MacWriteII", Size: "45K"},
	}
	if !reflect.DeepEqual(a.Views, wantViews) {
		t.Errorf("Views = %+v, want %+v", a.Views, wantViews)
	}
	if wantAbs := "This is a short (but multi-line) abstract about the\nitem. Two or three lines ought to be enough"; a.Abstract != wantAbs {
		t.Errorf("Abstract = %q, want %q", a.Abstract, wantAbs)
	}
	if names := blockNames(a); !reflect.DeepEqual(names, []string{"INFO", "ADMIN", "VIEWS", "ABSTRACT"}) {
		t.Errorf("blocks = %v", names)
	}
	if v := a.Views[2].String(); v != "Text/plain De_DE" {
		t.Errorf("View.String() = %q", v)
	}
}

func blockNames(a Attributes) []string {
	var n []string
	for _, b := range a.Blocks {
		n = append(n, b.Name)
	}
	return n
}

func TestParseAttributesDollar(t *testing.T) {
	got, err := ParseAttributes([]byte(dollarExample))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d items, want 2 (one per +INFO)", len(got))
	}
	if got[0].Info.Display != "Salmon dogs" || got[1].Info.Display != "Hot pups" || got[1].Info.Port != 71 {
		t.Errorf("Info = %+v, %+v", got[0].Info, got[1].Info)
	}
	if got[0].Abstract != "A great recipe for making salmon" || got[1].Abstract != "" {
		t.Errorf("Abstract = %q, %q", got[0].Abstract, got[1].Abstract)
	}
	if got[1].Admin["Date"] != "<19910101080003>" || !got[1].ModTime.IsZero() {
		t.Errorf("second item admin = %v, mod time %v", got[1].Admin, got[1].ModTime)
	}
}

func TestParseAttributesAsk(t *testing.T) {
	got, err := ParseAttributes([]byte(askExample))
	if err != nil {
		t.Fatal(err)
	}
	want := []Question{
		{Kind: "Ask", Prompt: "How many volts?"},
		{Kind: "Choose", Prompt: "Deliver electric shock to administrator now?", Choices: []string{"Yes", "Not!"}},
	}
	if !reflect.DeepEqual(got[0].Ask, want) {
		t.Errorf("Ask = %+v, want %+v", got[0].Ask, want)
	}
}

func TestParseAttributesLenient(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		items int
		check func(t *testing.T, a []Attributes)
	}{
		{"LF only and dot line", "+INFO: 1x\t/\th\t70\n+ABSTRACT:\n one\n.\n+JUNK:\n", 1, func(t *testing.T, a []Attributes) {
			if a[0].Abstract != "one" || a[0].Block("JUNK") != nil {
				t.Errorf("got %+v", a[0])
			}
		}},
		{"block before INFO", "+ADMIN:\r\n Admin: x <a@b>\r\n", 1, func(t *testing.T, a []Attributes) {
			if a[0].Info != nil || a[0].Admin["Admin"] != "x <a@b>" {
				t.Errorf("got %+v", a[0])
			}
		}},
		{"leading blank line, unknown block, line without space", "\r\n+INFO: 0a\tb\th\t70\r\n+SMELL: sweet\r\nno space\r\n", 1, func(t *testing.T, a []Attributes) {
			b := a[0].Block("SMELL")
			if b == nil || b.Value != "sweet" || !reflect.DeepEqual(b.Lines, []string{"no space"}) {
				t.Errorf("SMELL = %+v", b)
			}
		}},
		{"abstract by reference", "+INFO: 0a\tb\th\t70\r\n+ABSTRACT: 0long abstract\tsel\th2\t70\t+\r\n the short abstract\r\n", 1, func(t *testing.T, a []Attributes) {
			if a[0].Abstract != "the short abstract" || !strings.HasPrefix(a[0].Block("ABSTRACT").Value, "0long abstract") {
				t.Errorf("got %+v", a[0])
			}
		}},
		{"name without colon", "+INFO 0a\tb\th\t70\r\n+VIEWS\r\n text/plain\r\n", 1, func(t *testing.T, a []Attributes) {
			if a[0].Info == nil || len(a[0].Views) != 1 || a[0].Views[0].Type != "text/plain" {
				t.Errorf("got %+v", a[0])
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAttributes([]byte(tt.in))
			if err != nil {
				t.Fatalf("ParseAttributes(%q) = %v", tt.in, err)
			}
			if len(got) != tt.items {
				t.Fatalf("%d items, want %d", len(got), tt.items)
			}
			tt.check(t, got)
		})
	}
}

func TestParseAttributesErrors(t *testing.T) {
	var pe *proto.ProtocolError
	for _, in := range []string{"", "hello\r\nworld\r\n", " indented\r\n", "\r\n\r\n"} {
		if _, err := ParseAttributes([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("ParseAttributes(%q) = %v, want *proto.ProtocolError", in, err)
		}
	}
	long := "+INFO: " + strings.Repeat("x", 200) + "\r\n"
	if _, err := parseAttributes([]byte(long), limits{maxLine: 100}); !errors.As(err, &pe) {
		t.Errorf("over-long line: %v, want *proto.ProtocolError", err)
	}
	many := strings.Repeat("+X:\r\n", 11)
	if _, err := parseAttributes([]byte(many), limits{maxItems: 10}); !errors.As(err, &pe) {
		t.Errorf("11 blocks with a limit of 10: %v, want *proto.ProtocolError", err)
	}
}

func FuzzParseAttributes(f *testing.F) {
	f.Add([]byte(infoExample))
	f.Add([]byte(dollarExample))
	f.Add([]byte(askExample))
	f.Add([]byte("+INFO\r\n+ASK:\r\n Select: x:1\r\n AskL: y\tdef\r\n Note: n\r\n"))
	f.Add([]byte("+ADMIN:\r\n Mod-Date: <>\r\n Mod-Date: ><\r\n"))
	f.Add([]byte("+\r\n+:\r\n+ \r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := parseAttributes(in, limits{maxLine: 1 << 10, maxItems: 1 << 10})
		if err != nil {
			var pe *proto.ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *proto.ProtocolError", err)
			}
			return
		}
		blocks := 0
		for _, a := range got {
			blocks += len(a.Blocks)
			if len(a.Blocks) == 0 {
				t.Fatal("an item without blocks")
			}
		}
		if blocks > 1<<10 || blocks > strings.Count(string(in), "+") {
			t.Fatalf("%d blocks from %d bytes", blocks, len(in))
		}
		// What formatAttributes writes parses to the same blocks.
		again, err := parseAttributes(formatAttributes(got), limits{maxLine: 1 << 12, maxItems: 1 << 10})
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if len(again) != len(got) {
			t.Fatalf("re-parse: %d items, want %d", len(again), len(got))
		}
	})
}

func TestParseServerError(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     ServerError
		moved    bool
		notFound bool
	}{
		// pygopherd's answer to a missing selector.
		{"pygopherd", "1 Unconfigured Pygopherd Admin <pygopherd@nowhere.nowhere>\r\n'/nope' does not exist (no handler found)\r\n",
			ServerError{Code: 1, Admin: "pygopherd@nowhere.nowhere", Msg: "'/nope' does not exist (no handler found)"}, false, true},
		{"try later", "2 <root@h>\r\nMy load is too high right now.\r\n",
			ServerError{Code: 2, Admin: "root@h", Msg: "My load is too high right now."}, false, false},
		{"moved", "3 0New place\t/new\tnewhost\t7070\t+\r\n",
			ServerError{Code: 3, Msg: "0New place\t/new\tnewhost\t7070\t+"}, true, false},
		{"moved without descriptor", "3 gone\r\nsomewhere else\r\n",
			ServerError{Code: 3, Msg: "somewhere else"}, false, false},
		{"no code", "something broke\r\n", ServerError{Msg: "something broke"}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, moved := parseServerError([]byte(tt.in))
			if *e != tt.want {
				t.Errorf("parseServerError = %+v, want %+v", *e, tt.want)
			}
			if (moved != nil) != tt.moved {
				t.Errorf("moved = %+v, want %v", moved, tt.moved)
			}
			if errors.Is(e, proto.ErrNotFound) != tt.notFound {
				t.Errorf("errors.Is(ErrNotFound) = %v, want %v", !tt.notFound, tt.notFound)
			}
			if e.Temporary() != (tt.want.Code == 2) {
				t.Errorf("Temporary() = %v", e.Temporary())
			}
		})
	}
	if e, moved := parseServerError([]byte("3 0New place\t/new\tnewhost\t7070\t+\r\n")); moved == nil || moved.URL() != "gopher://newhost:7070/0/new" {
		t.Errorf("moved item = %+v (%v)", moved, e)
	}
}

// FuzzServerError: whatever error text a Gopher+ server sends, the error
// says it without a control byte, keeps a few KiB of it, and a moved item
// is code 3 with a URL that parses.
func FuzzServerError(f *testing.F) {
	f.Add([]byte("1 Admin <a@b>\r\n'/nope' does not exist\r\n"))
	f.Add([]byte("3 0New place\t/new\tnewhost\t7070\t+\r\n"))
	f.Add([]byte("3 1x\t\x00\t[::1\t70\r\n\x1b[2J"))
	f.Fuzz(func(t *testing.T, text []byte) {
		e, moved := parseServerError(text)
		if len(e.Msg) > 4096 {
			t.Fatalf("message of %d bytes", len(e.Msg))
		}
		if msg := e.Error(); strings.ContainsFunc(msg, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Fatalf("Error() = %q", msg)
		}
		if moved == nil {
			return
		}
		if e.Code != CodeMoved || moved.Host == "" {
			t.Fatalf("moved item %+v with code %d", moved, e.Code)
		}
		if u := moved.URL(); u != "" {
			if _, err := uri.Parse(u); err != nil {
				t.Fatalf("moved to %q, which does not parse: %v", u, err)
			}
		}
	})
}

// checkFormTests: RFC 1738 section 3.4.9, the form of a filled +ASK form.
func TestCheckForm(t *testing.T) {
	tests := []struct {
		in    string
		n     int
		valid bool
	}{
		{"+\t1\r\n+-1\r\nyes\r\n.\r\n", 1, true},
		{"+\t1\r\n+-1\r\n.\r\n", 0, true},
		{"+\t1\r\n+-1\r\none\r\n\r\n..dot\r\n.\r\n", 3, true},
		{"+\t1\r\n+-1\r\nv\tw\r\n.\r\n", 1, true},
		{"+", 0, false},
		{"+\t1\r\n+-1\r\n", 0, false},
		{"+\t1\r\n+-1\r\nv\r\n.\r\nx", 0, false},
		{"+\t1\r\n+-1\r\n.\r\n.\r\n", 0, false},
		{"+\t1\r\n+-1\r\na\rb\r\n.\r\n", 0, false},
		{"+\t1\r\n+-1\r\na\x00b\r\n.\r\n", 0, false},
		{"+\t1\n+-1\r\n.\r\n", 0, false},
		{"!\t1\r\n+-1\r\n.\r\n", 0, false},
	}
	for _, tt := range tests {
		n, ok := checkForm(tt.in)
		if ok != tt.valid || n != tt.n {
			t.Errorf("checkForm(%q) = %d, %v; want %d, %v", tt.in, n, ok, tt.n, tt.valid)
		}
	}
}

func TestEncodeForm(t *testing.T) {
	got, err := encodeForm([]string{"Ann", "2", "l1", "l2"})
	if want := "+\t1\r\n+-1\r\nAnn\r\n2\r\nl1\r\nl2\r\n.\r\n"; err != nil || got != want {
		t.Errorf("encodeForm = %q, %v; want %q", got, err, want)
	}
	if _, ok := checkForm(got); !ok {
		t.Errorf("checkForm(encodeForm(...)) = false")
	}
	for _, bad := range []string{"a\r\nb", "a\nb", "a\x00", "."} {
		if _, err := encodeForm([]string{bad}); !errors.Is(err, proto.ErrUnsafeArgument) {
			t.Errorf("encodeForm(%q) = %v, want ErrUnsafeArgument", bad, err)
		}
	}
}

func TestParseQuestion(t *testing.T) {
	tests := []struct {
		in   string
		want Question
	}{
		{"Ask: Name?", Question{Kind: "Ask", Prompt: "Name?"}},
		{"Ask: Name?\tAnn", Question{Kind: "Ask", Prompt: "Name?", Default: "Ann"}},
		{"AskP: Password:", Question{Kind: "AskP", Prompt: "Password:"}},
		{"AskL: Comments\tdefault text", Question{Kind: "AskL", Prompt: "Comments", Default: "default text"}},
		{"AskF: Save as\tout.txt", Question{Kind: "AskF", Prompt: "Save as", Default: "out.txt"}},
		{"Select: Join the list:1", Question{Kind: "Select", Prompt: "Join the list", Default: "1"}},
		{"Select: Plain box", Question{Kind: "Select", Prompt: "Plain box"}},
		{"Choose: Color?\tred\tblue", Question{Kind: "Choose", Prompt: "Color?", Choices: []string{"red", "blue"}}},
		{"ChooseF: File\ta.txt\tb.txt", Question{Kind: "ChooseF", Prompt: "File", Choices: []string{"a.txt", "b.txt"}}},
		{"Note: Read this first", Question{Kind: "Note", Prompt: "Read this first"}},
		{"Frob: what", Question{Kind: "Frob", Prompt: "what"}},
	}
	for _, tt := range tests {
		got, ok := parseQuestion(tt.in)
		if !ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseQuestion(%q) = %+v, %v; want %+v", tt.in, got, ok, tt.want)
		}
	}
}

// askForm is a form with every kind of question.
var askForm = []Question{
	{Kind: "Note", Prompt: "Please answer"},
	{Kind: "Ask", Prompt: "Name?"},
	{Kind: "AskP", Prompt: "Password?"},
	{Kind: "AskL", Prompt: "Comments"},
	{Kind: "Select", Prompt: "Join", Default: "0"},
	{Kind: "Choose", Prompt: "Color?", Choices: []string{"red", "blue"}},
	{Kind: "Ask", Prompt: "City?", Default: "Paris"},
}

func TestAnswerFormFromForm(t *testing.T) {
	req := &proto.Request{Form: map[string]string{
		"1":         "Ann",
		"Password?": "s3cret",
		"3":         "line one\nline two",
		"Join":      "yes",
		"5":         "2",
	}}
	got, err := answerForm(t.Context(), askForm, req)
	want := []string{"Ann", "s3cret", "2", "line one", "line two", "1", "blue", "Paris"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("answerForm = %q, %v; want %q", got, err, want)
	}
}

func TestAnswerFormFromPrompt(t *testing.T) {
	p := &fakePrompter{answers: []string{"Bob", "pw", "first", "second", ".", "n", "red", ""}}
	got, err := answerForm(t.Context(), askForm, &proto.Request{Prompt: p})
	want := []string{"Bob", "pw", "2", "first", "second", "0", "red", "Paris"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("answerForm = %q, %v; want %q", got, err, want)
	}
	// AskP is asked without echo, everything else with.
	wantEcho := []bool{true, false, true, true, true, true, true, true}
	if !reflect.DeepEqual(p.echo, wantEcho) {
		t.Errorf("echo = %v, want %v (prompts %q)", p.echo, wantEcho, p.asked)
	}
}

func TestAnswerFormErrors(t *testing.T) {
	tests := []struct {
		name string
		qs   []Question
		req  *proto.Request
		want error
	}{
		{"no answer, no prompt", []Question{{Kind: "Ask", Prompt: "Name?"}}, &proto.Request{}, proto.ErrNeedInput},
		{"not a choice", []Question{{Kind: "Choose", Prompt: "C", Choices: []string{"a"}}},
			&proto.Request{Form: map[string]string{"1": "z"}}, proto.ErrNeedInput},
		{"choice out of range", []Question{{Kind: "Choose", Prompt: "C", Choices: []string{"a"}}},
			&proto.Request{Form: map[string]string{"1": "2"}}, proto.ErrNeedInput},
		{"select not yes or no", []Question{{Kind: "Select", Prompt: "S"}},
			&proto.Request{Form: map[string]string{"1": "maybe"}}, proto.ErrNeedInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := answerForm(t.Context(), tt.qs, tt.req); !errors.Is(err, tt.want) {
				t.Errorf("answerForm = %v, want %v", err, tt.want)
			}
		})
	}
	var pe *proto.ProtocolError
	if _, err := answerForm(t.Context(), []Question{{Kind: "Frob", Prompt: "x"}}, &proto.Request{}); !errors.As(err, &pe) {
		t.Errorf("unknown kind: %v, want *proto.ProtocolError", err)
	}
}
