"""`tf.autodiff`: forward-mode derivatives and the tape."""

from runtime.gradients import GradientTape
from runtime.gradients.forward import ForwardAccumulator
