package screen

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
)

// encodePNG writes img as an 8-bit RGB PNG, non-interlaced. Each row is filtered Up (the row
// above subtracted), which turns a screen's repeated rows to zeros; deflate at its fastest
// does the rest, so a mostly flat screen encodes in a few milliseconds.
func encodePNG(img *image.RGBA) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits, truecolour
	chunk(&out, "IHDR", ihdr)
	var idat bytes.Buffer
	z, _ := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	row := make([]byte, 1+3*w)
	prev := make([]byte, 3*w)
	cur := make([]byte, 3*w)
	for y := 0; y < h; y++ {
		src := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for x, j := 0, 0; x < 4*w; x, j = x+4, j+3 {
			cur[j], cur[j+1], cur[j+2] = src[x], src[x+1], src[x+2]
		}
		row[0] = 2 // Up
		for i := range cur {
			row[1+i] = cur[i] - prev[i]
		}
		z.Write(row)
		prev, cur = cur, prev
	}
	z.Close()
	chunk(&out, "IDAT", idat.Bytes())
	chunk(&out, "IEND", nil)
	return out.Bytes()
}

func chunk(out *bytes.Buffer, name string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	out.Write(n[:])
	crc := crc32.NewIEEE()
	crc.Write([]byte(name))
	crc.Write(data)
	out.WriteString(name)
	out.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	out.Write(n[:])
}
