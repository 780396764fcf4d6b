package serve

import "testing"

func TestHandle(t *testing.T) {
	w := &Response{Headers: map[string]string{}}
	Handle(w, "a.txt", "e1", "e1")
	if w.Status != 304 {
		t.Errorf("status %d, want 304", w.Status)
	}
}
