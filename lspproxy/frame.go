package lspproxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// maxFrame bounds a frame's Content-Length. LSP messages can be large
// (workspace/symbol, semantic tokens of a big file), but a length beyond this
// is a corrupt header, not a message.
const maxFrame = 1 << 30

// errFraming marks a header the reader cannot recover from: without a valid
// Content-Length there is no way to know where the next frame starts.
var errFraming = errors.New("lspproxy: malformed frame header")

// frameReader reads LSP base-protocol frames ("Content-Length: N\r\n\r\n" and
// N bytes) into a buffer it reuses: what [frameReader.next] returns is
// borrowed until the following read. [frameReader.Read] returns a copy.
type frameReader struct {
	r   *bufio.Reader
	buf []byte
}

func newFrameReader(r io.Reader) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10)}
}

var headerContentLength = []byte("content-length")

// headroom is what the reader keeps free in front of a body for the header
// it is forwarded with: "Content-Length: ", up to 10 digits, "\r\n\r\n".
const headroom = len("Content-Length: ") + 10 + len("\r\n\r\n")

// keepBuffer is the largest read buffer kept for the next frame; one grown
// past it by a large message is let go once a smaller frame comes.
const keepBuffer = 1 << 20

// frame is one frame read into a frameReader's buffer, valid until the
// reader's next read.
type frame struct {
	// body is the message.
	body []byte
	// wire is body with the header in front, contiguous in the buffer:
	// "Content-Length: N\r\n\r\n" and the body, what is forwarded (other
	// headers the sender wrote are not).
	wire []byte
}

// Read returns the next frame's body as a fresh slice the caller owns.
// io.EOF means the peer closed the connection between frames; an error
// wrapping errFraming means the header was unusable and the stream cannot
// be resynchronised.
func (fr *frameReader) Read() ([]byte, error) {
	f, err := fr.next()
	if err != nil {
		return nil, err
	}
	return bytes.Clone(f.body), nil
}

// next reads the next frame into the reader's buffer; errors are Read's.
func (fr *frameReader) next() (frame, error) {
	length, err := fr.header()
	if err != nil {
		return frame{}, err
	}
	n := headroom + length
	if cap(fr.buf) < n || (cap(fr.buf) > keepBuffer && n <= keepBuffer) {
		fr.buf = make([]byte, n)
	}
	buf := fr.buf[:n]
	if _, err := io.ReadFull(fr.r, buf[headroom:]); err != nil {
		return frame{}, fmt.Errorf("lspproxy: reading %d-byte frame body: %w", length, err)
	}
	var header [headroom]byte
	h := append(header[:0], "Content-Length: "...)
	h = strconv.AppendInt(h, int64(length), 10)
	h = append(h, "\r\n\r\n"...)
	start := headroom - len(h)
	copy(buf[start:], h)
	return frame{body: buf[headroom:], wire: buf[start:]}, nil
}

// header reads a frame's header lines and returns its Content-Length.
func (fr *frameReader) header() (int, error) {
	length := -1
	first := true
	for {
		line, err := fr.r.ReadSlice('\n')
		if err != nil {
			if first && len(line) == 0 && err == io.EOF {
				return 0, io.EOF
			}
			if err == bufio.ErrBufferFull {
				return 0, fmt.Errorf("%w: header line longer than %d bytes", errFraming, fr.r.Size())
			}
			return 0, fmt.Errorf("lspproxy: reading frame header: %w", err)
		}
		first = false
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		if n, ok := plainContentLength(line); ok {
			length = n
			continue
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			return 0, fmt.Errorf("%w: header line %q has no colon", errFraming, truncate(line))
		}
		name := bytes.TrimSpace(line[:colon])
		if !bytes.EqualFold(name, headerContentLength) {
			continue // Content-Type and unknown headers are ignored
		}
		value := bytes.TrimSpace(line[colon+1:])
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || n < 0 || n > maxFrame {
			return 0, fmt.Errorf("%w: bad Content-Length %q", errFraming, truncate(value))
		}
		length = int(n)
	}
	if length < 0 {
		return 0, fmt.Errorf("%w: missing Content-Length", errFraming)
	}
	return length, nil
}

// plainContentLength reads a header line written as every known client and
// server writes it, "Content-Length: " and up to nine digits, without the
// general parse's case folding and trimming; ok is false for any other line.
func plainContentLength(line []byte) (n int, ok bool) {
	const prefix = "Content-Length: "
	digits := len(line) - len(prefix)
	if digits < 1 || digits > 9 || string(line[:len(prefix)]) != prefix {
		return 0, false
	}
	for _, c := range line[len(prefix):] {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// frameWriter writes frames; one Write per frame for small bodies so a frame
// reaches a pipe in one piece.
type frameWriter struct {
	w   io.Writer
	buf []byte
}

// smallFrame is the size up to which header and body are copied into one
// buffer and written with a single Write.
const smallFrame = 64 << 10

func (fw *frameWriter) Write(body []byte) error {
	fw.buf = append(fw.buf[:0], "Content-Length: "...)
	fw.buf = strconv.AppendInt(fw.buf, int64(len(body)), 10)
	fw.buf = append(fw.buf, "\r\n\r\n"...)
	if len(body) <= smallFrame {
		fw.buf = append(fw.buf, body...)
		_, err := fw.w.Write(fw.buf)
		if cap(fw.buf) > 4*smallFrame {
			fw.buf = nil
		}
		return err
	}
	if _, err := fw.w.Write(fw.buf); err != nil {
		return err
	}
	_, err := fw.w.Write(body)
	return err
}

// WriteWire writes a frame as read (header and body, see [frame]) in one
// Write, without copying it.
func (fw *frameWriter) WriteWire(wire []byte) error {
	_, err := fw.w.Write(wire)
	return err
}

// write writes b: a frame as read when wire is set, else a body to frame.
func (fw *frameWriter) write(b []byte, wire bool) error {
	if wire {
		return fw.WriteWire(b)
	}
	return fw.Write(b)
}

// truncate shortens b for a log line.
func truncate(b []byte) string {
	const n = 80
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// CopyFrames moves LSP frames from src to dst until either side fails,
// looking at nothing but each frame's Content-Length header. It is the
// floor the proxy's forwarding cost is measured against: a middle that
// only delimits frames. It returns nil when src ends between frames.
func CopyFrames(dst io.Writer, src io.Reader) error {
	r := bufio.NewReaderSize(src, 64<<10)
	var buf []byte
	for {
		n := -1
		for first := true; ; first = false {
			line, err := r.ReadSlice('\n')
			if err != nil {
				if first && len(line) == 0 && err == io.EOF {
					return nil
				}
				return fmt.Errorf("lspproxy: copying frames: reading a header: %w", err)
			}
			line = bytes.TrimRight(line, "\r\n")
			if len(line) == 0 {
				break
			}
			if v, ok := bytes.CutPrefix(line, []byte("Content-Length:")); ok {
				n, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
			}
		}
		if n < 0 || n > maxFrame {
			return fmt.Errorf("%w: missing or bad Content-Length", errFraming)
		}
		buf = append(buf[:0], "Content-Length: "...)
		buf = strconv.AppendInt(buf, int64(n), 10)
		buf = append(buf, "\r\n\r\n"...)
		h := len(buf)
		buf = slices.Grow(buf, n)[:h+n]
		if _, err := io.ReadFull(r, buf[h:]); err != nil {
			return fmt.Errorf("lspproxy: copying frames: reading a %d-byte body: %w", n, err)
		}
		if _, err := dst.Write(buf); err != nil {
			return fmt.Errorf("lspproxy: copying frames: %w", err)
		}
	}
}
