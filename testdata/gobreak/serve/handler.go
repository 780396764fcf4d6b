package serve

// Handle serves a request for name: two paths into writeNotModified's
// callers, so a change to it reaches Handle at depth 2.
func Handle(w *Response, name, etag, ifNoneMatch string) {
	if ifNoneMatch != "" && etag == "" {
		Revalidate(w, true)
		return
	}
	ServeFile(w, name, etag, ifNoneMatch)
}
