package x11

import (
	"image"
	"math/bits"
)

// RGBA converts the pixmap to opaque RGBA by the root visual's masks.
func (im *Image) RGBA() *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, im.Width, im.Height))
	v := im.Visual
	if im.BitsPerPixel == 32 && !im.MSBFirst && v.RedMask == 0xff0000 && v.GreenMask == 0xff00 && v.BlueMask == 0xff {
		// The usual TrueColor layout, bytes B, G, R, X: no shifts.
		for y := 0; y < im.Height; y++ {
			src := im.Data[y*im.Stride : y*im.Stride+4*im.Width]
			dst := out.Pix[y*out.Stride : y*out.Stride+4*im.Width]
			for i := 0; i < len(src); i += 4 {
				dst[i], dst[i+1], dst[i+2], dst[i+3] = src[i+2], src[i+1], src[i], 0xff
			}
		}
		return out
	}
	chans := [3]struct {
		mask  uint32
		shift int
		width int
	}{}
	for i, m := range [3]uint32{v.RedMask, v.GreenMask, v.BlueMask} {
		chans[i].mask, chans[i].shift, chans[i].width = m, bits.TrailingZeros32(m), bits.OnesCount32(m)
	}
	bpp := im.BitsPerPixel / 8
	for y := 0; y < im.Height; y++ {
		row := im.Data[y*im.Stride:]
		dst := out.Pix[y*out.Stride:]
		for x := 0; x < im.Width; x++ {
			p := row[x*bpp : x*bpp+bpp]
			var px uint32
			for i := 0; i < bpp; i++ {
				if im.MSBFirst {
					px = px<<8 | uint32(p[i])
				} else {
					px |= uint32(p[i]) << (8 * i)
				}
			}
			for i, ch := range chans {
				c := (px & ch.mask) >> ch.shift
				if ch.width < 8 && ch.width > 0 {
					c = c * 255 / (1<<ch.width - 1)
				} else if ch.width > 8 {
					c >>= ch.width - 8
				}
				dst[4*x+i] = uint8(c)
			}
			dst[4*x+3] = 0xff
		}
	}
	return out
}
