// Printed direct-mail campaigns: orders, their recipients, checkouts and address-book entries.
package directmail
