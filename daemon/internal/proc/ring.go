package proc

// ring keeps the last bytes of one stream. Offsets count bytes since the process started.
type ring struct {
	buf      []byte // circular once it reaches limit; grows up to it
	head     int    // index of the oldest kept byte
	n        int    // bytes kept
	size     int64  // bytes ever written: the end offset
	limit    int
	released bool // let go under the budget: nothing kept, every byte counted dropped
}

func newRing(limit int) *ring { return &ring{limit: limit} }

// start is the offset of the oldest kept byte.
func (r *ring) start() int64 { return r.size - int64(r.n) }

// write appends p, dropping the oldest bytes past the limit; it returns the change in bytes kept.
func (r *ring) write(p []byte) int {
	r.size += int64(len(p))
	if r.released {
		return 0
	}
	before := r.n
	if len(p) >= r.limit {
		r.buf = append(r.buf[:0], p[len(p)-r.limit:]...)
		r.buf = r.buf[:r.limit]
		r.head, r.n = 0, r.limit
		return r.n - before
	}
	if r.n+len(p) > len(r.buf) && len(r.buf) < r.limit {
		r.grow(min(r.limit, max(2*len(r.buf), r.n+len(p), 4096)))
	}
	for len(p) > 0 {
		tail := (r.head + r.n) % len(r.buf)
		if r.n == len(r.buf) {
			// Full: overwrite the oldest.
			c := copy(r.buf[tail:min(len(r.buf), tail+len(p))], p)
			if tail+c > len(r.buf) {
				c = len(r.buf) - tail
			}
			r.head = (r.head + c) % len(r.buf)
			p = p[c:]
			continue
		}
		end := len(r.buf)
		if tail < r.head {
			end = r.head
		}
		c := copy(r.buf[tail:end], p)
		r.n += c
		p = p[c:]
	}
	return r.n - before
}

// grow (or shrink) the buffer to size, keeping the newest bytes in order.
func (r *ring) grow(size int) {
	nb := make([]byte, size)
	keep := min(r.n, size)
	r.copyOut(nb, r.size-int64(keep))
	r.buf, r.head, r.n = nb, 0, keep
}

// copyOut copies kept bytes from offset off into dst; it returns how many.
func (r *ring) copyOut(dst []byte, off int64) int {
	if r.released || off < r.start() || off >= r.size || len(r.buf) == 0 {
		return 0
	}
	skip := int(off - r.start())
	count := min(len(dst), r.n-skip)
	for i := 0; i < count; {
		pos := (r.head + skip + i) % len(r.buf)
		c := copy(dst[i:count], r.buf[pos:min(len(r.buf), pos+count-i)])
		i += c
	}
	return count
}

// setLimit narrows (or widens) the ring; it returns the change in bytes kept.
func (r *ring) setLimit(limit int) int {
	before := r.n
	r.limit = limit
	if len(r.buf) > limit {
		r.grow(limit)
	}
	return r.n - before
}

// release lets go of every kept byte; it returns the change in bytes kept.
func (r *ring) release() int {
	before := r.n
	r.released, r.buf, r.head, r.n = true, nil, 0, 0
	return -before
}
