"""The update rules of Keras's optimizers, as Keras 3 writes them (one class each)."""

from autograph.tf.keras.optimizers._optimizer import Optimizer
from runtime.ops import array_ops as _array
from runtime.ops import math_ops as _math


class SGD(Optimizer):
    """Gradient descent, with optional (Nesterov) momentum:
    `m = momentum * m - lr * g; var += m` (Nesterov: `var += momentum * m - lr * g`);
    without momentum `var -= lr * g`."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, name="SGD", **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        if not isinstance(momentum, (int, float)) or not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be a float between [0, 1]. Received: "
                             "momentum=%r" % (momentum,))
        self.momentum = momentum
        self.nesterov = nesterov

    def build(self, var_list):
        """Make a `momentum` slot per variable (only when momentum is not 0)."""
        self.momentums = []
        if self.momentum != 0:
            self.momentums = [self.add_variable_from_reference(v, "momentum")
                              for v in var_list]
        super().build(var_list)

    def update_step(self, gradient, variable, learning_rate):
        """One SGD update of `variable`."""
        if self.momentum == 0:
            variable.assign_sub(gradient * learning_rate)
            return
        momentum = self._slot(self.momentums, variable)
        momentum.assign(momentum * self.momentum - gradient * learning_rate)
        if self.nesterov:
            variable.assign_add(momentum * self.momentum - gradient * learning_rate)
        else:
            variable.assign_add(momentum)


class Adam(Optimizer):
    """Adam: moving averages `m` of the gradient and `v` of its square, and
    `var -= lr * sqrt(1 - beta_2^t) / (1 - beta_1^t) * m / (sqrt(v) + epsilon)`."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="adam", **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = amsgrad

    def build(self, var_list):
        """Make the `momentum` and `velocity` slots (and `velocity_hat` with amsgrad)."""
        # made interleaved, variable by variable, as Keras makes them: the order of
        # `variables`, which a .keras file's optimizer state follows
        self.momentums, self.velocities = [], []
        for v in var_list:
            self.momentums.append(self.add_variable_from_reference(v, "momentum"))
            self.velocities.append(self.add_variable_from_reference(v, "velocity"))
        self.velocity_hats = []
        if self.amsgrad:
            self.velocity_hats = [self.add_variable_from_reference(v, "velocity_hat")
                                  for v in var_list]
        super().build(var_list)

    def update_step(self, gradient, variable, learning_rate):
        """One Adam update of `variable`."""
        step = _math.cast(self.iterations + 1, variable.dtype)
        beta_1_power = _math.pow(_array.constant(self.beta_1, dtype=variable.dtype), step)
        beta_2_power = _math.pow(_array.constant(self.beta_2, dtype=variable.dtype), step)
        m = self._slot(self.momentums, variable)
        v = self._slot(self.velocities, variable)
        alpha = learning_rate * _math.sqrt(1.0 - beta_2_power) / (1.0 - beta_1_power)
        m.assign_add((gradient - m) * (1.0 - self.beta_1))
        v.assign_add((_math.square(gradient) - v) * (1.0 - self.beta_2))
        second_moment = v.read_value()
        if self.amsgrad:
            v_hat = self._slot(self.velocity_hats, variable)
            v_hat.assign(_math.maximum(v_hat, v))
            second_moment = v_hat.read_value()
        variable.assign_sub(m * alpha / (_math.sqrt(second_moment) + self.epsilon))


class AdamW(Adam):
    """Adam with decoupled weight decay: each update first shrinks the variable,
    `var -= var * weight_decay * lr`, then applies Adam's step."""

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, amsgrad=False, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="adamw", **kwargs):
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: "
                             "weight_decay=None")
        super().__init__(learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                         amsgrad=amsgrad, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)


class RMSprop(Optimizer):
    """RMSprop: a moving average of the squared gradient divides the step,
    `var -= lr * g / sqrt(v + epsilon)` (centered: `v - mean(g)^2`), with optional plain
    momentum on the increment."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="rmsprop", **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered

    def build(self, var_list):
        """Make the `velocity` slots (plus `momentum` and `average_gradient` when used)."""
        self.velocities = [self.add_variable_from_reference(v, "velocity") for v in var_list]
        self.momentums = []
        if self.momentum > 0:
            self.momentums = [self.add_variable_from_reference(v, "momentum")
                              for v in var_list]
        self.average_gradients = []
        if self.centered:
            self.average_gradients = [self.add_variable_from_reference(v, "average_gradient")
                                      for v in var_list]
        super().build(var_list)

    def update_step(self, gradient, variable, learning_rate):
        """One RMSprop update of `variable`."""
        velocity = self._slot(self.velocities, variable)
        velocity.assign(self.rho * velocity + (1.0 - self.rho) * _math.square(gradient))
        if self.centered:
            average = self._slot(self.average_gradients, variable)
            average.assign(self.rho * average + (1.0 - self.rho) * gradient)
            denominator = velocity - _math.square(average) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = learning_rate * gradient / _math.sqrt(denominator)
        if self.momentum > 0:
            momentum = self._slot(self.momentums, variable)
            momentum.assign(self.momentum * momentum + increment)
            variable.assign_sub(momentum)
        else:
            variable.assign_sub(increment)


class Adagrad(Optimizer):
    """Adagrad: an accumulator of squared gradients (starting at
    `initial_accumulator_value`) scales each step, `var -= lr * g / sqrt(acc + epsilon)`."""

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 name="adagrad", **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def build(self, var_list):
        """Make an `accumulator` slot per variable, filled with the initial value."""
        self.accumulators = [
            self.add_variable_from_reference(v, "accumulator",
                                             initializer=self.initial_accumulator_value)
            for v in var_list]
        super().build(var_list)

    def update_step(self, gradient, variable, learning_rate):
        """One Adagrad update of `variable`."""
        accumulator = self._slot(self.accumulators, variable)
        accumulator.assign_add(_math.square(gradient))
        variable.assign_sub(learning_rate * gradient / _math.sqrt(accumulator + self.epsilon))
