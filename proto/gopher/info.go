package gopher

import "github.com/rfc1738/fetch/proto"

// AttributesOf returns the Gopher+ attribute blocks of resp, the response
// to a "!" or "$" request, and whether resp holds any: its body is then the
// blocks as received.
func AttributesOf(resp *proto.Response) ([]Attributes, bool) {
	a, ok := resp.Info["attributes"].([]Attributes)
	return a, ok
}

// UnparsedOf returns the lines of the menu resp that are no menu line.
func UnparsedOf(resp *proto.Response) []string {
	lines, _ := resp.Info[InfoUnparsed].([]string)
	return lines
}
