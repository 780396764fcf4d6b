// Package freelist keeps values between uses, for the buffers a pipeline
// hands from one stage to another or from one item to the next. Unlike a
// sync.Pool, a List is never emptied by a garbage collection: a load that
// runs a dozen collections would otherwise grow its buffers again after
// each. It holds what was put back, as many as were in use at once.
package freelist
