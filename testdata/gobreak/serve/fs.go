// Package serve is modeled on net/http's fs.go: writeNotModified is called
// three times in the file that defines it, and once from another file.
package serve

import "strings"

// Response is what a handler writes.
type Response struct {
	Status  int
	Headers map[string]string
	Body    strings.Builder
}

func writeNotModified(w *Response) {
	w.Status = 304
	delete(w.Headers, "Content-Type")
	delete(w.Headers, "Content-Length")
}

func checkPreconditions(w *Response, etag, ifNoneMatch string) bool {
	if ifNoneMatch == etag {
		writeNotModified(w)
		return true
	}
	return false
}

func serveContent(w *Response, etag, ifNoneMatch, body string) {
	if checkPreconditions(w, etag, ifNoneMatch) {
		return
	}
	if body == "" && etag != "" {
		writeNotModified(w)
		return
	}
	w.Status = 200
	w.Body.WriteString(body)
}

// ServeFile serves a file's content.
func ServeFile(w *Response, name, etag, ifNoneMatch string) {
	if strings.HasSuffix(name, "/") && ifNoneMatch == "*" {
		writeNotModified(w)
		return
	}
	serveContent(w, etag, ifNoneMatch, "content of "+name)
}
