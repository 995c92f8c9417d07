//! Random loss on a link: the scenario's [`LossModel`] with its state and random stream.

use cclab_scenario::LossModel;

use crate::rng::Rng;

/// A loss model being run: draws whether each packet is lost.
#[derive(Clone, Debug)]
pub struct LossProcess {
    model: LossModel,
    rng: Rng,
}

impl LossProcess {
    pub fn new(model: LossModel, rng: Rng) -> Self {
        LossProcess { model, rng }
    }

    /// No packet is ever lost: callers skip the draw.
    #[inline(always)]
    pub fn is_none(&self) -> bool {
        matches!(self.model, LossModel::None)
    }

    /// Is the next packet lost?
    pub fn lose(&mut self) -> bool {
        match self.model {
            LossModel::None => false,
            LossModel::Bernoulli(p) => self.rng.chance(p),
            LossModel::GilbertElliott { .. } => {
                unimplemented!("Gilbert-Elliott loss is not built yet (issue 10)")
            }
        }
    }
}
