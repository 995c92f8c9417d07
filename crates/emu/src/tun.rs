//! A TUN device: IP packets the kernel routes to the device are read from a file
//! descriptor, and packets written to it enter the kernel as if received
//! (Documentation/networking/tuntap.rst). Not persistent: the kernel removes the device when
//! the descriptor closes, so a process that dies, even by SIGKILL, leaves none behind.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use crate::error::EmuError;

/// `_IOW('T', 202, int)` (include/uapi/linux/if_tun.h).
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
/// No 4-byte packet-information header: reads and writes are bare IP packets.
const IFF_NO_PI: libc::c_short = 0x1000;

/// `struct ifreq` with the flags member of its union (include/uapi/linux/if.h): 16 bytes of
/// name, then a 24-byte union.
#[repr(C)]
struct IfReqFlags {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _rest: [u8; 22],
}

pub struct Tun {
    fd: OwnedFd,
    pub name: String,
}

impl Tun {
    /// Create the device `name` (at most 15 bytes) in the caller's network namespace,
    /// non-blocking.
    pub fn create(name: &str) -> Result<Tun, EmuError> {
        let path = CString::new("/dev/net/tun").expect("a literal without NUL bytes");
        // SAFETY: a valid NUL-terminated path; the result is checked.
        let raw = unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        };
        if raw < 0 {
            return Err(EmuError::last_os("opening /dev/net/tun"));
        }
        // SAFETY: `raw` is a descriptor we just opened and own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut request = IfReqFlags {
            name: [0; libc::IFNAMSIZ],
            flags: IFF_TUN | IFF_NO_PI,
            _rest: [0; 22],
        };
        let bytes = name.as_bytes();
        if bytes.len() >= libc::IFNAMSIZ {
            return Err(EmuError::Unsupported(format!(
                "device name {name} is longer than {} bytes",
                libc::IFNAMSIZ - 1
            )));
        }
        request.name[..bytes.len()].copy_from_slice(bytes);
        // SAFETY: TUNSETIFF reads and writes a `struct ifreq`, which `request` lays out.
        if unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF, &mut request) } < 0 {
            return Err(EmuError::last_os(format!("creating TUN device {name}")));
        }
        Ok(Tun {
            fd,
            name: name.to_string(),
        })
    }

    /// One packet into `buf`; `Ok(None)` when none is waiting.
    pub fn read(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: `buf` is valid for `buf.len()` bytes of writes.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let error = io::Error::last_os_error();
        if error.kind() == io::ErrorKind::WouldBlock {
            Ok(None)
        } else {
            Err(error)
        }
    }

    /// Hand one packet to the kernel of the device's namespace.
    pub fn write(&self, packet: &[u8]) -> io::Result<()> {
        // SAFETY: `packet` is valid for `packet.len()` bytes of reads.
        let n = unsafe { libc::write(self.fd.as_raw_fd(), packet.as_ptr().cast(), packet.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
