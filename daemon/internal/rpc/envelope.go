package rpc

import (
	"bytes"
	"encoding/json"
)

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// parseRequest reads a line's envelope. Params may point into line (the caller copies them);
// ID never does. A line the quick reader is unsure of goes through encoding/json whole, so the
// result and the words of any error are encoding/json's either way.
func parseRequest(line []byte) (request, error) {
	if req, ok := quickRequest(line); ok {
		return req, nil
	}
	var req request
	err := json.Unmarshal(line, &req)
	return req, err
}

// quickRequest takes the common shape only: an object whose envelope keys are spelt exactly,
// each once, with a string (or null) jsonrpc and method. Other keys are skipped, as
// encoding/json skips them.
func quickRequest(line []byte) (request, bool) {
	var req request
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return req, false
	}
	var seen [4]bool
	end, ok := eachMember(line, i, 0, func(key []byte, start, end int) bool {
		k := key[1 : len(key)-1]
		slot := -1
		for n, name := range [...]string{"jsonrpc", "id", "method", "params"} {
			if bytes.EqualFold(k, []byte(name)) {
				if string(k) != name {
					return false // a key matched only by case folding: encoding/json decides
				}
				slot = n
			}
		}
		if slot < 0 {
			// encoding/json folds some non-ASCII letters onto ASCII ones (ſ onto s).
			for _, c := range k {
				if c >= 0x80 || c == '\\' {
					return false
				}
			}
			return true
		}
		if seen[slot] {
			return false
		}
		seen[slot] = true
		v := line[start:end]
		switch slot {
		case 0:
			return quickString(v, &req.JSONRPC)
		case 1:
			req.ID = append(json.RawMessage(nil), v...)
		case 2:
			if string(v) == "null" {
				return true
			}
			var s string
			if !quickString(v, &s) {
				return false
			}
			req.Method = &s
		case 3:
			req.Params = v
		}
		return true
	})
	if !ok || skipSpace(line, end) != len(line) {
		return req, false
	}
	return req, true
}

// quickString decodes a string value (null leaves s as it is, as encoding/json does).
func quickString(v []byte, s *string) bool {
	switch {
	case string(v) == "null":
		return true
	case v[0] != '"':
		return false
	}
	return json.Unmarshal(v, s) == nil
}
