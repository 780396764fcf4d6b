package serve

// Revalidate answers a revalidation from the cache.
func Revalidate(w *Response, fresh bool) {
	if fresh {
		writeNotModified(w)
	}
}
