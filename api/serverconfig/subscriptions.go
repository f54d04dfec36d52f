package serverconfig

import (
	"fmt"
	"time"

	"github.com/ontoindex/ontoindex/objects"
)

// Subscriptions configures the live object set subscriptions
// (server.subscriptions): the websocket that @osdk/client's subscribe
// opens. Zero values take the defaults below.
type Subscriptions struct {
	// MaxPerConnection bounds the subscriptions of one connection; a
	// subscribe message asking for more gets an error for the excess.
	MaxPerConnection int `yaml:"maxPerConnection" json:"maxPerConnection"`
	// MaxTotal bounds the subscriptions of the whole server.
	MaxTotal int `yaml:"maxTotal" json:"maxTotal"`
	// MaxConnections bounds the open subscription websockets; more are
	// refused with 429 before the upgrade.
	MaxConnections int `yaml:"maxConnections" json:"maxConnections"`
	// MaxMessageBytes bounds one change message: a build that changed more
	// of a subscription's objects than fit sends refreshObjectSet instead
	// (the client reloads the set). It also bounds subscribe messages.
	MaxMessageBytes int `yaml:"maxMessageBytes" json:"maxMessageBytes"`
	// QueueLength bounds the change messages waiting to be written to one
	// connection. A consumer that falls further behind loses the waiting
	// changes of its subscriptions and gets refreshObjectSet for each once
	// it catches up: nothing is lost silently.
	QueueLength int `yaml:"queueLength" json:"queueLength"`
	// Heartbeat is the interval of the server's pings; a connection whose
	// pong does not come within the next interval is closed.
	Heartbeat time.Duration `yaml:"heartbeat" json:"heartbeat"`
	// WriteTimeout bounds the write of one message; a client that does not
	// read for that long is disconnected (it reconnects and is told its
	// sets are out of date).
	WriteTimeout time.Duration `yaml:"writeTimeout" json:"writeTimeout"`
	// AllowedOrigins are the host patterns (path.Match syntax, such as
	// "*.example.com") whose browser pages may open the websocket besides
	// the server's own origin.
	AllowedOrigins []string `yaml:"allowedOrigins" json:"allowedOrigins"`
}

// Subscription defaults.
const (
	DefaultMaxSubscriptionsPerConnection = 1000
	DefaultMaxSubscriptions              = 100_000
	DefaultMaxSubscriptionConnections    = 10_000
	DefaultMaxSubscriptionMessageBytes   = 8 << 20
	DefaultSubscriptionQueueLength       = 256
	DefaultSubscriptionHeartbeat         = 30 * time.Second
	DefaultSubscriptionWriteTimeout      = 30 * time.Second
)

// validate checks the section and fills in its defaults.
func (c *Subscriptions) validate() []error {
	var errs []error
	ints := []struct {
		field string
		v     *int
		def   int
	}{
		{"server.subscriptions.maxPerConnection", &c.MaxPerConnection, DefaultMaxSubscriptionsPerConnection},
		{"server.subscriptions.maxTotal", &c.MaxTotal, DefaultMaxSubscriptions},
		{"server.subscriptions.maxConnections", &c.MaxConnections, DefaultMaxSubscriptionConnections},
		{"server.subscriptions.maxMessageBytes", &c.MaxMessageBytes, DefaultMaxSubscriptionMessageBytes},
		{"server.subscriptions.queueLength", &c.QueueLength, DefaultSubscriptionQueueLength},
	}
	for _, d := range ints {
		switch {
		case *d.v < 0:
			errs = append(errs, &objects.FieldError{Field: d.field, Msg: "must not be negative"})
		case *d.v == 0:
			*d.v = d.def
		}
	}
	durations := []struct {
		field string
		v     *time.Duration
		def   time.Duration
	}{
		{"server.subscriptions.heartbeat", &c.Heartbeat, DefaultSubscriptionHeartbeat},
		{"server.subscriptions.writeTimeout", &c.WriteTimeout, DefaultSubscriptionWriteTimeout},
	}
	for _, d := range durations {
		switch {
		case *d.v < 0:
			errs = append(errs, &objects.FieldError{Field: d.field, Msg: "must not be negative"})
		case *d.v == 0:
			*d.v = d.def
		}
	}
	if c.MaxPerConnection > c.MaxTotal {
		errs = append(errs, &objects.FieldError{Field: "server.subscriptions.maxPerConnection",
			Msg: fmt.Sprintf("%d is larger than server.subscriptions.maxTotal (%d)", c.MaxPerConnection, c.MaxTotal)})
	}
	return errs
}
