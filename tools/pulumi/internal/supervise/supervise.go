// Package supervise keeps a language host's programs from outliving the engine that asked for them.
package supervise

import (
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// engineProbeInterval is how often the host checks that the engine is still there.
const engineProbeInterval = time.Second

// Children are the processes a language host runs now (its programs, pip), ended with the host.
type Children struct {
	watchOnce sync.Once
	mu        sync.Mutex
	running   map[*os.Process]struct{}
}

// WatchEngine stops the host, and every program it started, once the engine at address stops
// accepting connections. The engine serves that address until it has closed all of its plugins,
// so a refused connection means it exited without closing this host: it was killed (SIGKILL, a
// crash, the OOM killer). Without this, the host and the programs it runs would wait forever for
// requests that can no longer come.
func (c *Children) WatchEngine(address string) {
	c.watchOnce.Do(func() {
		go func() {
			for range time.Tick(engineProbeInterval) {
				conn, err := net.DialTimeout("tcp", address, engineProbeInterval)
				if err == nil {
					// A connection closed before the HTTP/2 preface, as from a TCP health prober; the
					// engine's gRPC server drops it without a log line.
					_ = conn.Close()
				} else if errors.Is(err, syscall.ECONNREFUSED) {
					c.Stop()
				}
			}
		}()
	})
}

// Track records that p runs (running) or has ended (!running).
func (c *Children) Track(p *os.Process, running bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running == nil {
		c.running = map[*os.Process]struct{}{}
	}
	if running {
		c.running[p] = struct{}{}
	} else {
		delete(c.running, p)
	}
}

// Stop ends every process this host started, then the host itself. It prints nothing: the engine
// read the output, and writing to its closed pipe would end the host (SIGPIPE) before its children.
func (c *Children) Stop() {
	c.mu.Lock()
	for p := range c.running {
		_ = p.Kill()
	}
	c.mu.Unlock()
	if syscall.Getpgrp() == os.Getpid() {
		// The engine starts each plugin as the leader of its own process group, so the group is this
		// host and everything started from it, grandchildren included.
		_ = syscall.Kill(0, syscall.SIGKILL)
	}
	os.Exit(1)
}
