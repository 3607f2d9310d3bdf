package rpc

import (
	"bytes"
	"encoding/binary"
)

// A quick JSON reader for the hot path: it finds where values begin and end in a line, and
// says whether the line is well-formed by the same grammar encoding/json holds to. Long
// strings (a chunk's base64) are crossed a word at a time instead of a byte at a time. When it
// answers false, the caller hands the line to encoding/json, which gives the error in words.

// maxScanDepth is far below encoding/json's own bound, so a line it refuses is only deferred.
const maxScanDepth = 512

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue returns the index just past the value that begins at b[i] (no space before it).
func skipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > maxScanDepth {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{':
		return eachMember(b, i, depth, nil)
	case c == '[':
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = skipValue(b, i, depth+1); !ok {
				return 0, false
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case ']':
				return i + 1, true
			case ',':
				i = skipSpace(b, i+1)
			default:
				return 0, false
			}
		}
	case c == 't':
		return skipWord(b, i, "true")
	case c == 'f':
		return skipWord(b, i, "false")
	case c == 'n':
		return skipWord(b, i, "null")
	case c == '-' || ('0' <= c && c <= '9'):
		return skipNumber(b, i)
	}
	return 0, false
}

// eachMember crosses the object at b[i], calling member (when not nil) with each key's raw
// text (quotes included) and its value's bounds; member answering false stops the scan.
func eachMember(b []byte, i, depth int, member func(key []byte, start, end int) bool) (int, bool) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		keyStart := i
		keyEnd, ok := skipString(b, i)
		if !ok {
			return 0, false
		}
		i = skipSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		start := skipSpace(b, i+1)
		end, ok := skipValue(b, start, depth+1)
		if !ok {
			return 0, false
		}
		if member != nil && !member(b[keyStart:keyEnd], start, end) {
			return 0, false
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case '}':
			return i + 1, true
		case ',':
			i = skipSpace(b, i+1)
		default:
			return 0, false
		}
	}
}

func skipWord(b []byte, i int, word string) (int, bool) {
	if len(b)-i >= len(word) && string(b[i:i+len(word)]) == word {
		return i + len(word), true
	}
	return 0, false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skipNumber: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func skipNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && isDigit(b[i]):
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return 0, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return 0, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, true
}

// skipString returns the index just past the string whose opening quote is b[i].
func skipString(b []byte, i int) (int, bool) {
	i++
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return 0, false
		}
		body := b[i : i+q]
		bs := bytes.IndexByte(body, '\\')
		if bs < 0 {
			if hasControl(body) {
				return 0, false
			}
			return i + q + 1, true
		}
		// An escape: check the plain run before it, then the escape itself, and go on.
		if hasControl(body[:bs]) {
			return 0, false
		}
		i += bs + 1
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			if len(b)-i < 5 || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
				return 0, false
			}
			i += 5
		default:
			return 0, false
		}
	}
}

func isHex(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// hasControl reports a byte below 0x20, which no JSON string may hold unescaped; eight bytes
// at a time (a word has such a byte exactly when (w - 0x20…) & ^w & 0x80… is not zero).
func hasControl(s []byte) bool {
	const ones, highs = 0x2020202020202020, 0x8080808080808080
	for len(s) >= 8 {
		w := binary.LittleEndian.Uint64(s)
		if (w-ones)&^w&highs != 0 {
			return true
		}
		s = s[8:]
	}
	for _, c := range s {
		if c < 0x20 {
			return true
		}
	}
	return false
}
