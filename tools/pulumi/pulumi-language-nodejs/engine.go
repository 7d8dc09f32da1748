package main

import (
	"errors"
	"net"
	"os"
	"syscall"
	"time"
)

// engineProbeInterval is how often the host checks that the engine is still there.
const engineProbeInterval = time.Second

// watchEngine stops the host, and every program it started, once the engine at address stops
// accepting connections. The engine serves that address until it has closed all of its plugins,
// so a refused connection means it exited without closing this host: it was killed (SIGKILL, a
// crash, the OOM killer). Without this, the host and the programs it runs would wait forever for
// requests that can no longer come.
func (h *host) watchEngine(address string) {
	h.watchOnce.Do(func() {
		go func() {
			for range time.Tick(engineProbeInterval) {
				conn, err := net.DialTimeout("tcp", address, engineProbeInterval)
				if err == nil {
					// A connection closed before the HTTP/2 preface, as from a TCP health prober; the
					// engine's gRPC server drops it without a log line.
					_ = conn.Close()
				} else if errors.Is(err, syscall.ECONNREFUSED) {
					h.stop()
				}
			}
		}()
	})
}

func (h *host) track(p *os.Process, running bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if running {
		h.children[p] = struct{}{}
	} else {
		delete(h.children, p)
	}
}

// stop ends every process this host started, then the host itself. It prints nothing: the engine
// read the output, and writing to its closed pipe would end the host (SIGPIPE) before its children.
func (h *host) stop() {
	h.mu.Lock()
	for p := range h.children {
		_ = p.Kill()
	}
	h.mu.Unlock()
	if syscall.Getpgrp() == os.Getpid() {
		// The engine starts each plugin as the leader of its own process group, so the group is this
		// host and everything started from it, grandchildren included.
		_ = syscall.Kill(0, syscall.SIGKILL)
	}
	os.Exit(1)
}
