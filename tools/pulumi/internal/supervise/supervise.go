// Package supervise serves a language host to the engine, and keeps the host's programs from
// outliving the engine that asked for them.
package supervise

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
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

// EngineAddress is the engine's address, the last argument the engine starts a host with (empty
// when started by hand; the engine then sends it with Handshake).
func EngineAddress(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[len(args)-1]
}

// Serve serves host as the language runtime until the engine closes it, printing the port on the
// first line of stdout, where the engine reads it; it exits with a message when it cannot serve.
func Serve(host pulumirpc.LanguageRuntimeServer) {
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
	})
	if err != nil {
		cmdutil.Exit(fmt.Errorf("could not start the language host: %w", err))
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		cmdutil.Exit(fmt.Errorf("language host stopped serving: %w", err))
	}
}
