//go:build !linux

package soak

import "syscall"

func childAttr() *syscall.SysProcAttr { return nil }
