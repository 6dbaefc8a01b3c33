package front

import "bytes"

// sseFields splits an SSE event into its data (the data lines' values
// joined by LF, as an SSE client reads them; nil when it has no data line)
// and its other lines (id, event, retry, comments), each ended by LF.
func sseFields(ev []byte) (data, other []byte) {
	hasData := false
	for len(ev) > 0 {
		var line []byte
		i := bytes.IndexAny(ev, "\r\n")
		switch {
		case i < 0:
			line, ev = ev, nil
		case ev[i] == '\r' && i+1 < len(ev) && ev[i+1] == '\n':
			line, ev = ev[:i], ev[i+2:]
		default:
			line, ev = ev[:i], ev[i+1:]
		}
		if len(line) == 0 {
			continue
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		if string(name) != "data" {
			other = append(append(other, line...), '\n')
			continue
		}
		if hasData {
			data = append(data, '\n')
		}
		hasData = true
		data = append(data, bytes.TrimPrefix(value, []byte(" "))...)
	}
	if hasData && data == nil {
		data = []byte{}
	}
	return data, other
}
