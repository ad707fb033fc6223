package gopher

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/internal/lineproto"
	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
)

// Transfer lengths of a Gopher+ response header (gopherplus.txt section
// 2.3): a length >= 0 is exact; these two mean "unknown".
const (
	// LengthDot: the data ends with a "." line.
	LengthDot = -1
	// LengthClose: the data ends when the server closes the connection.
	LengthClose = -2
)

// Header is the first line of a Gopher+ response (gopherplus.txt section
// 2.3, "DataHead ::= Success Transfer CR-LF"): "+5340", "+-1", "+-2" for
// data, "--1", "--2" or "-<n>" for an error whose text follows.
type Header struct {
	// OK is true for "+", false for "-" (an error block follows).
	OK bool
	// Length is the number of data bytes, or LengthDot or LengthClose.
	Length int64
}

// HeaderError is a malformed Gopher+ header line; it holds the line (at
// most 32 bytes of it).
type HeaderError string

func (e HeaderError) Error() string {
	return "gopher: malformed gopher+ header " + strconv.Quote(string(e))
}

// ParseHeader parses a Gopher+ response header line (its line end may be
// present or not).
func ParseHeader(line string) (Header, error) {
	s := strings.TrimRight(line, "\r\n")
	bad := func() (Header, error) {
		if len(s) > 32 {
			s = s[:32]
		}
		return Header{}, HeaderError(s)
	}
	if len(s) < 2 || len(s) > 20 || (s[0] != '+' && s[0] != '-') {
		return bad()
	}
	h := Header{OK: s[0] == '+'}
	num := s[1:]
	switch num {
	case "-1":
		h.Length = LengthDot
		return h, nil
	case "-2":
		h.Length = LengthClose
		return h, nil
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || strings.Trim(num, "0123456789") != "" { // no sign
		return bad()
	}
	h.Length = n
	return h, nil
}

// ServerError is a Gopher+ error response (gopherplus.txt section 2.3):
// the header said "-", and the first line of the error text starts with a
// code. Codes: 1 item is not available (Unwrap gives proto.ErrNotFound), 2
// try again later, 3 item has moved (the driver returns a *proto.Redirect
// instead when the new place is given as a gopher descriptor). Other codes
// are kept as sent.
type ServerError struct {
	// Code is the error code; 0 when the text did not start with one.
	Code int
	// Admin is the administrator's address given in angle brackets on the
	// first line; empty if none.
	Admin string
	// Msg is the error text after the first line (or the first line's
	// remainder when it is alone), at most a few KiB.
	Msg string
}

// Error codes of gopherplus.txt section 2.3.
const (
	CodeNotAvailable = 1
	CodeTryLater     = 2
	CodeMoved        = 3
)

func (e *ServerError) Error() string {
	var what string
	switch e.Code {
	case 0:
		what = "error item"
	case CodeNotAvailable:
		what = "item is not available"
	case CodeTryLater:
		what = "try again later"
	case CodeMoved:
		what = "item has moved"
	default:
		what = "error " + strconv.Itoa(e.Code)
	}
	if e.Msg != "" {
		return "gopher: " + what + ": " + termtext.Mask(e.Msg)
	}
	return "gopher: " + what
}

// Unwrap returns proto.ErrNotFound for code 1 (and for the error lines of
// a plain gopher server, which carry no code), nil otherwise.
func (e *ServerError) Unwrap() error {
	if e.Code == CodeNotAvailable || e.Code == 0 {
		return proto.ErrNotFound
	}
	return nil
}

// Temporary reports whether the server asked to try again later (code 2).
func (e *ServerError) Temporary() bool { return e.Code == CodeTryLater }

// parseServerError parses the text of a Gopher+ error block. moved is the
// gopher descriptor that follows code 3, when there is one.
func parseServerError(text []byte) (e *ServerError, moved *Item) {
	e = &ServerError{}
	first, rest, _ := strings.Cut(string(text), "\n")
	first = strings.TrimRight(first, "\r")
	tok, after, _ := strings.Cut(strings.TrimLeft(first, " "), " ")
	if n, err := strconv.Atoi(tok); err == nil {
		e.Code = n
		first = after
	}
	if i := strings.IndexByte(first, '<'); i >= 0 {
		if j := strings.IndexByte(first[i:], '>'); j > 0 {
			e.Admin = first[i+1 : i+j]
		}
	}
	if e.Code == CodeMoved && strings.Contains(first, "\t") {
		it := parseItem(strings.TrimSpace(first))
		if it.Host != "" {
			moved = &it
		}
	}
	msg := cmp.Or(strings.TrimSpace(strings.ReplaceAll(rest, "\r", "")), strings.TrimSpace(first))
	if len(msg) > 4096 {
		msg = msg[:4096]
	}
	e.Msg = msg
	return e, moved
}

// Block is one Gopher+ attribute block (gopherplus.txt section 2.5): a line
// "+NAME: value" and the lines after it, each of which started with a
// space (removed here).
type Block struct {
	// Name is the block name without its "+" ("INFO", "ADMIN", ...).
	Name string `json:"name"`
	// Value is the text after "+NAME:" on the block's first line (for
	// +INFO the item descriptor; for others an optional gopher reference).
	Value string `json:"value,omitempty"`
	// Lines are the block's following lines, the leading space removed.
	Lines []string `json:"lines,omitempty"`
}

// View is one line of a +VIEWS block (gopherplus.txt appendix A3.0):
// "Content-Type[ language]: [<size>]".
type View struct {
	// Type is the view's content type as written ("Text/plain").
	Type string `json:"type"`
	// Language is the view's language ("En_US"), empty if none.
	Language string `json:"language,omitempty"`
	// Size is the size as written inside the angle brackets ("10k"),
	// empty if none.
	Size string `json:"size,omitempty"`
}

// String gives the view as the gopher+_string of an alternate view
// (RFC 1738 section 3.4, "+<view_name> <language_name>"), without the "+".
func (v View) String() string {
	if v.Language == "" {
		return v.Type
	}
	return v.Type + " " + v.Language
}

// Question is one line of a +ASK block (gopherplus.txt section 2.8):
// "Kind: prompt[TAB default or choices...]".
type Question struct {
	// Kind is one of Ask, AskP (hidden input), AskL (several lines), AskF
	// (a local file name), Select (a check box), Choose (one of Choices),
	// ChooseF (one of Choices, naming a local file), Note (text shown,
	// not answered).
	Kind string `json:"kind"`
	// Prompt is the question text.
	Prompt string `json:"prompt"`
	// Default is the default answer, if any: the field after the prompt
	// for Ask, AskP, AskL and AskF; "0" or "1" for Select.
	Default string `json:"default,omitempty"`
	// Choices are the fields after the prompt for Choose and ChooseF.
	Choices []string `json:"choices,omitempty"`
}

// Answered reports whether the question takes an answer (every kind but
// Note).
func (q Question) Answered() bool { return q.Kind != "Note" }

// questionKinds are the +ASK kinds this package knows.
var questionKinds = map[string]bool{
	"Ask": true, "AskP": true, "AskL": true, "AskF": true,
	"Select": true, "Choose": true, "ChooseF": true, "Note": true,
}

// Attributes are the attribute blocks of one item, as returned for "!"
// (one item) or "$" (every item of a menu, each starting with +INFO).
type Attributes struct {
	// Info is the item of the +INFO block; nil when there was none.
	Info *Item `json:"info,omitempty"`
	// Admin holds the "Name: value" lines of the +ADMIN block (Admin,
	// Mod-Date, ...).
	Admin map[string]string `json:"admin,omitempty"`
	// ModTime is the time in angle brackets on the Mod-Date line
	// (<YYYYMMDDhhmmss>, taken as UTC); zero if absent or malformed.
	ModTime time.Time `json:"mod_time,omitzero"`
	// Views lists the +VIEWS block.
	Views []View `json:"views,omitempty"`
	// Abstract is the text of the +ABSTRACT block, lines joined with "\n".
	Abstract string `json:"abstract,omitempty"`
	// Ask lists the questions of the +ASK block.
	Ask []Question `json:"ask,omitempty"`
	// Blocks are all the item's blocks in the order sent, the known ones
	// above included.
	Blocks []Block `json:"blocks"`
}

// Block returns the first block named name ("ABSTRACT", without "+"), or
// nil.
func (a *Attributes) Block(name string) *Block {
	for i := range a.Blocks {
		if a.Blocks[i].Name == name {
			return &a.Blocks[i]
		}
	}
	return nil
}

// errNotAttributes: the data does not start with an attribute block.
var errNotAttributes = &proto.ProtocolError{Proto: "gopher", Msg: "response holds no attribute blocks"}

// ParseAttributes parses the attribute blocks of a "!" or "$" response
// (gopherplus.txt sections 2.5 and 2.7, "AttrBlocks" of appendix II): a
// line starting with "+" opens a block, lines starting with a space belong
// to it, and every "+INFO" block starts a new item. Lines that start with
// neither are kept in the current block as they are; a "." line ends the
// data. It is an error when the first line that is not empty does not open
// a block. A line longer than DefaultMaxLine or more than DefaultMaxItems
// items (or blocks) give a *proto.ProtocolError.
func ParseAttributes(b []byte) ([]Attributes, error) {
	return parseAttributes(b, limits{})
}

func parseAttributes(b []byte, lim limits) ([]Attributes, error) {
	maxLine, maxItems := lim.line(), lim.items()
	var out []Attributes
	var cur *Attributes
	var blk *Block
	nblocks := 0
	for len(b) > 0 {
		line, rest, err := lineproto.Cut(b, maxLine)
		if err != nil {
			return nil, protoErr("attribute %v", err)
		}
		b = rest
		line = trimEOL(line)
		s := string(line)
		switch {
		case s == ".":
			b = nil
			continue
		case strings.HasPrefix(s, "+"):
			nblocks++
			if nblocks > maxItems {
				return nil, protoErr("more than %d attribute blocks", maxItems)
			}
			name, value := splitBlockLine(s[1:])
			if name == "INFO" || cur == nil {
				out = append(out, Attributes{})
				cur = &out[len(out)-1]
			}
			cur.Blocks = append(cur.Blocks, Block{Name: name, Value: value})
			blk = &cur.Blocks[len(cur.Blocks)-1]
		case blk == nil:
			if strings.TrimSpace(s) == "" {
				continue
			}
			return nil, errNotAttributes
		default:
			blk.Lines = append(blk.Lines, strings.TrimPrefix(s, " "))
		}
	}
	if len(out) == 0 {
		return nil, errNotAttributes
	}
	for i := range out {
		out[i].interpret()
	}
	return out, nil
}

// splitBlockLine splits "NAME: value" (the text after the "+"). The name
// ends at the first ":" or space ("Blockname ::= '+' {UNASCIINOPLUS}").
func splitBlockLine(s string) (name, value string) {
	end := strings.IndexAny(s, ": \t")
	if end < 0 {
		return s, ""
	}
	name, value = s[:end], s[end:]
	value = strings.TrimPrefix(value, ":")
	return name, strings.TrimSpace(value)
}

// interpret fills the typed fields from Blocks.
func (a *Attributes) interpret() {
	for _, b := range a.Blocks {
		switch b.Name {
		case "INFO":
			if a.Info == nil && b.Value != "" {
				it := parseItem(b.Value)
				a.Info = &it
			}
		case "ADMIN":
			for _, l := range b.Lines {
				k, v, ok := strings.Cut(l, ":")
				if !ok {
					continue
				}
				k, v = strings.TrimSpace(k), strings.TrimSpace(v)
				if a.Admin == nil {
					a.Admin = make(map[string]string)
				}
				a.Admin[k] = v
				if k == "Mod-Date" {
					a.ModTime = bracketTime(v)
				}
			}
		case "VIEWS":
			for _, l := range b.Lines {
				if v, ok := parseView(l); ok {
					a.Views = append(a.Views, v)
				}
			}
		case "ABSTRACT":
			text := strings.Join(b.Lines, "\n")
			if a.Abstract != "" {
				a.Abstract += "\n"
			}
			a.Abstract += text
		case "ASK":
			for _, l := range b.Lines {
				if q, ok := parseQuestion(l); ok {
					a.Ask = append(a.Ask, q)
				}
			}
		}
	}
}

// bracketTime parses the <YYYYMMDDhhmmss> of a Mod-Date line.
func bracketTime(v string) time.Time {
	i := strings.LastIndexByte(v, '<')
	j := strings.LastIndexByte(v, '>')
	if i < 0 || j < i {
		return time.Time{}
	}
	t, err := time.Parse("20060102150405", v[i+1:j])
	if err != nil {
		return time.Time{}
	}
	return t
}

// parseView parses " Content-Type[ language]: [<size>]".
func parseView(l string) (View, bool) {
	l = strings.TrimSpace(l)
	if l == "" {
		return View{}, false
	}
	label, rest, _ := strings.Cut(l, ":")
	var v View
	f := strings.Fields(label)
	if len(f) == 0 {
		return View{}, false
	}
	v.Type = f[0]
	if len(f) > 1 {
		v.Language = f[1]
	}
	if i := strings.IndexByte(rest, '<'); i >= 0 {
		if j := strings.IndexByte(rest[i:], '>'); j > 0 {
			v.Size = rest[i+1 : i+j]
		}
	}
	return v, true
}

// parseQuestion parses one +ASK line: "Kind: prompt[TAB field...]".
// Unknown kinds are reported with ok true and their kind kept, so that
// the form is refused rather than answered out of step.
func parseQuestion(l string) (Question, bool) {
	l = strings.TrimLeft(l, " ")
	if strings.TrimSpace(l) == "" {
		return Question{}, false
	}
	kind, rest, _ := strings.Cut(l, ":")
	rest = strings.TrimPrefix(rest, " ")
	f := strings.Split(rest, "\t")
	q := Question{Kind: strings.TrimSpace(kind), Prompt: f[0]}
	switch q.Kind {
	case "Choose", "ChooseF":
		q.Choices = f[1:]
	case "Select":
		// A check box: "Select: label:1" has the default after the last
		// colon (the form of the UMN server's ASK files).
		if i := strings.LastIndexByte(q.Prompt, ':'); i >= 0 {
			if d := strings.TrimSpace(q.Prompt[i+1:]); d == "0" || d == "1" {
				q.Prompt, q.Default = q.Prompt[:i], d
			}
		}
		if q.Default == "" && len(f) > 1 {
			q.Default = strings.TrimSpace(f[1])
		}
	default:
		if len(f) > 1 {
			q.Default = f[1]
		}
	}
	return q, true
}

// formPrefix starts a filled +ASK form in a gopher+_string (RFC 1738
// section 3.4.9: "+%091%0D%0A+-1%0D%0A<ask_item1_value>%0D%0A...
// .%0D%0A"): the request line's gopher+ field "+", the data flag "1"
// (gopherplus.txt section 2.4, "selectorstringF+[representation][FdataFlag]
// <CRLF>[datablock]"), then a dot-terminated data block.
const formPrefix = "+\t1\r\n+-1\r\n"

// formEnd ends the data block of a filled form.
const formEnd = ".\r\n"

// checkForm reports whether plus is a filled +ASK form that the request
// line may carry: IsAskForm, and no NUL in an answer. It returns the
// number of answer lines.
func checkForm(plus string) (int, bool) {
	if !IsAskForm(plus) || strings.IndexByte(plus, 0) >= 0 {
		return 0, false
	}
	return strings.Count(plus, "\r\n") - 3, true // 3: the CRLFs of formPrefix and formEnd
}

// encodeForm builds the gopher+_string of a filled form from the answer
// lines (already expanded: an AskL answer is its count line and its lines).
func encodeForm(lines []string) (string, error) {
	var b strings.Builder
	b.WriteString(formPrefix)
	for _, l := range lines {
		if err := proto.CheckArg(l); err != nil {
			return "", fmt.Errorf("gopher: form answer: %w", err)
		}
		if l == "." {
			return "", fmt.Errorf("gopher: form answer %q would end the data block: %w", l, proto.ErrUnsafeArgument)
		}
		b.WriteString(l)
		b.WriteString("\r\n")
	}
	b.WriteString(formEnd)
	return b.String(), nil
}

// maxAskLines bounds the lines of one AskL answer typed at a prompt.
const maxAskLines = 1000

// answerForm asks the questions of a +ASK block and returns the lines of
// the data block, in the order of the questions (gopherplus.txt section
// 2.8: "The n responses harvested from the user are sent on to the server
// as the first n lines in the dataBlock"; an AskL answer is its line count
// on a line by itself, then its lines).
//
// Each answer comes from req.Form, by the question's number among the
// questions that take an answer ("1", "2", ...) or by its prompt text;
// else from req.Prompt (AskP without echo); else the question's default;
// else the form cannot be filled and the error wraps proto.ErrNeedInput.
// Choose and ChooseF answers are a choice's number or text and are sent as
// the choice's text; Select answers are sent as "1" or "0". No local file
// is ever read or written for AskF or ChooseF: their answer is a line like
// any other.
func answerForm(ctx context.Context, qs []Question, req *proto.Request) ([]string, error) {
	var lines []string
	n := 0
	for _, q := range qs {
		if !questionKinds[q.Kind] {
			return nil, protoErr("+ASK question of unknown kind %q", q.Kind)
		}
		if !q.Answered() {
			continue
		}
		n++
		a, err := answer(ctx, n, q, req)
		if err != nil {
			return nil, err
		}
		lines = append(lines, a...)
	}
	return lines, nil
}

// answer returns the data-block lines answering question number n.
func answer(ctx context.Context, n int, q Question, req *proto.Request) ([]string, error) {
	v, ok := req.Form[strconv.Itoa(n)]
	if !ok {
		v, ok = req.Form[q.Prompt]
	}
	if !ok {
		v, ok = req.Form[strings.TrimSpace(q.Prompt)]
	}
	if !ok && req.Prompt != nil {
		var err error
		v, err = askPrompt(ctx, q, req.Prompt)
		if err != nil {
			return nil, err
		}
		ok = true
	}
	if !ok {
		if q.Default == "" {
			return nil, fmt.Errorf("gopher: +ASK question %d (%q) has no answer: %w", n, termtext.Mask(q.Prompt), proto.ErrNeedInput)
		}
		v = q.Default
	}
	switch q.Kind {
	case "AskL":
		v = strings.ReplaceAll(v, "\r\n", "\n")
		ls := strings.Split(v, "\n")
		if v == "" {
			ls = nil
		}
		return append([]string{strconv.Itoa(len(ls))}, ls...), nil
	case "Select":
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "1", "y", "yes", "true", "on", "x":
			return []string{"1"}, nil
		case "0", "n", "no", "false", "off", "":
			return []string{"0"}, nil
		}
		return nil, fmt.Errorf("gopher: +ASK question %d (%q) wants yes or no, not %q: %w", n, termtext.Mask(q.Prompt), termtext.Mask(v), proto.ErrNeedInput)
	case "Choose", "ChooseF":
		if len(q.Choices) == 0 {
			return []string{v}, nil
		}
		if c, ok := pickChoice(q.Choices, v); ok {
			return []string{c}, nil
		}
		return nil, fmt.Errorf("gopher: +ASK question %d (%q): %q is not one of its choices: %w", n, termtext.Mask(q.Prompt), termtext.Mask(v), proto.ErrNeedInput)
	}
	return []string{v}, nil
}

// pickChoice finds v among choices: by number from 1, or by text.
func pickChoice(choices []string, v string) (string, bool) {
	t := strings.TrimSpace(v)
	if i, err := strconv.Atoi(t); err == nil && i >= 1 && i <= len(choices) {
		return choices[i-1], true
	}
	for _, c := range choices {
		if c == v || strings.EqualFold(strings.TrimSpace(c), t) {
			return c, true
		}
	}
	return "", false
}

// askPrompt asks q at the terminal. An empty reply takes the default.
func askPrompt(ctx context.Context, q Question, p proto.Prompter) (string, error) {
	text := termtext.Mask(q.Prompt)
	switch {
	case len(q.Choices) > 0:
		var b strings.Builder
		for i, c := range q.Choices {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d) %s", i+1, termtext.Mask(c))
		}
		text += " [" + b.String() + "]"
	case q.Kind == "Select":
		text += " (y/n)"
	}
	if q.Default != "" && q.Kind != "AskP" {
		text += " [" + termtext.Mask(q.Default) + "]"
	}
	if q.Kind == "AskL" {
		text += " (end with a line holding only \".\")"
		var ls []string
		for len(ls) < maxAskLines {
			l, err := p.Ask(ctx, text+": ", true)
			if err != nil {
				return "", fmt.Errorf("gopher: +ASK prompt: %w", err)
			}
			if l == "." {
				break
			}
			ls = append(ls, l)
			text = "  "
		}
		if len(ls) == 0 {
			return q.Default, nil
		}
		return strings.Join(ls, "\n"), nil
	}
	v, err := p.Ask(ctx, text+": ", q.Kind != "AskP")
	if err != nil {
		return "", fmt.Errorf("gopher: +ASK prompt: %w", err)
	}
	return cmp.Or(v, q.Default), nil
}
