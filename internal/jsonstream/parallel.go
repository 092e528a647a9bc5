package jsonstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"runtime"
	"sync"
)

const chunkLen = 256

// elementsParallel holds at most 2*GOMAXPROCS chunks at once, written in
// order.
func (s *streamer) elementsParallel(v elements, inner string) error {
	n := v.n
	chunks := (n + chunkLen - 1) / chunkLen
	type result struct {
		b   *bytes.Buffer
		err error
	}
	results := make([]chan result, chunks)
	for c := range results {
		results[c] = make(chan result, 1) // never blocks a worker
	}
	slots := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	free := make(chan *bytes.Buffer, cap(slots)) // written chunks' buffers
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait() // nothing reads v once Encode returns
	defer close(stop)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for c := range chunks {
			select {
			case slots <- struct{}{}:
			case <-stop:
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				b, err := encodeChunk(v, c, inner, free)
				results[c] <- result{b, err}
			}()
		}
	}()
	for c := range chunks {
		r := <-results[c]
		<-slots
		if r.err != nil {
			return r.err
		}
		if _, err := s.w.Write(r.b.Bytes()); err != nil {
			return err
		}
		select {
		case free <- r.b:
		default:
		}
	}
	return nil
}

func encodeChunk(v elements, c int, inner string, free chan *bytes.Buffer) (*bytes.Buffer, error) {
	var out *bytes.Buffer
	select {
	case out = <-free:
		out.Reset()
	default:
		out = new(bytes.Buffer)
	}
	p := &streamer{w: bufio.NewWriter(out), encs: map[string]*json.Encoder{}}
	var err error
	for i := c * chunkLen; i < min(v.n, (c+1)*chunkLen) && err == nil; i++ {
		p.w.WriteString(elementStart(i, inner))
		err = p.piece(v.at(i), inner)
	}
	if err == nil {
		err = p.w.Flush()
	}
	return out, err
}
