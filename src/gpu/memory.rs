//! Device memory, counted from the allocations themselves. Every owner of
//! GPU memory lists what it holds once, in its [`DeviceMemory`] impl beside
//! its `Destroy` impl, at what gpu-allocator charged for each allocation
//! (a buffer's or image's memory requirements and the padding that aligned
//! it, not the size asked for). The crowd fit check, the start-up line and
//! the overlay all add up those lists; a test holds the sum to the
//! allocator's own report.

use std::iter::Sum;
use std::ops::Add;

use super::resources::{Buffer, Image};

/// Device memory by what it holds, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryReport {
    /// Vertex, index, storage, uniform and texel buffers: the models', the
    /// frame slots', the crowd's.
    pub buffers: u64,
    /// The images the models' materials sample.
    pub textures: u64,
    /// The impostor atlases baked for the models.
    pub impostor_atlases: u64,
    /// What a frame draws into: colour and depth targets and the depth
    /// pyramid.
    pub targets: u64,
}

impl MemoryReport {
    pub fn total(&self) -> u64 {
        self.buffers + self.textures + self.impostor_atlases + self.targets
    }

    pub fn buffers<'a>(buffers: impl IntoIterator<Item = &'a Buffer>) -> MemoryReport {
        MemoryReport {
            buffers: buffers.into_iter().map(Buffer::bytes).sum(),
            ..MemoryReport::default()
        }
    }

    pub fn textures<'a>(images: impl IntoIterator<Item = &'a Image>) -> MemoryReport {
        MemoryReport {
            textures: images.into_iter().map(Image::bytes).sum(),
            ..MemoryReport::default()
        }
    }

    pub fn impostor_atlases<'a>(images: impl IntoIterator<Item = &'a Image>) -> MemoryReport {
        MemoryReport {
            impostor_atlases: images.into_iter().map(Image::bytes).sum(),
            ..MemoryReport::default()
        }
    }

    /// `images` and `buffers` that a frame draws into.
    pub fn targets<'a>(
        images: impl IntoIterator<Item = &'a Image>,
        buffers: impl IntoIterator<Item = &'a Buffer>,
    ) -> MemoryReport {
        MemoryReport {
            targets: images.into_iter().map(Image::bytes).sum::<u64>()
                + buffers.into_iter().map(Buffer::bytes).sum::<u64>(),
            ..MemoryReport::default()
        }
    }
}

impl Add for MemoryReport {
    type Output = MemoryReport;

    fn add(self, other: MemoryReport) -> MemoryReport {
        MemoryReport {
            buffers: self.buffers + other.buffers,
            textures: self.textures + other.textures,
            impostor_atlases: self.impostor_atlases + other.impostor_atlases,
            targets: self.targets + other.targets,
        }
    }
}

impl Sum for MemoryReport {
    fn sum<I: Iterator<Item = MemoryReport>>(reports: I) -> MemoryReport {
        reports.fold(MemoryReport::default(), Add::add)
    }
}

impl std::fmt::Display for MemoryReport {
    /// `63.2 MiB of GPU memory (buffers 12.1, textures 20.0, impostor
    /// atlases 24.0, targets 7.1)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
        write!(
            f,
            "{:.1} MiB of GPU memory (buffers {:.1}, textures {:.1}, impostor atlases {:.1}, \
             targets {:.1})",
            mib(self.total()),
            mib(self.buffers),
            mib(self.textures),
            mib(self.impostor_atlases),
            mib(self.targets)
        )
    }
}

/// An owner of device memory: what it holds now.
pub trait DeviceMemory {
    fn memory(&self) -> MemoryReport;
}

impl<T: DeviceMemory> DeviceMemory for [T] {
    fn memory(&self) -> MemoryReport {
        self.iter().map(DeviceMemory::memory).sum()
    }
}

impl<T: DeviceMemory> DeviceMemory for Option<T> {
    fn memory(&self) -> MemoryReport {
        self.as_ref().map(DeviceMemory::memory).unwrap_or_default()
    }
}

impl Buffer {
    pub fn bytes(&self) -> u64 {
        self.memory_bytes
    }
}

impl Image {
    pub fn bytes(&self) -> u64 {
        self.memory_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_gives_the_total_and_each_kind() {
        let report = MemoryReport {
            buffers: 3 << 20,
            textures: 1 << 19,
            impostor_atlases: 24 << 20,
            targets: 0,
        } + MemoryReport {
            targets: 1 << 20,
            ..MemoryReport::default()
        };
        assert_eq!(report.total(), (28 << 20) + (1 << 19));
        assert_eq!(
            report.to_string(),
            "28.5 MiB of GPU memory (buffers 3.0, textures 0.5, impostor atlases 24.0, \
             targets 1.0)"
        );
    }
}
