/**
 * Typed progress events of the training jobs (`trainRetriever`, `pretrainMlm`), for the
 * terminal renderer (`renderTrainEvents`), the pipeline, and tests. Rates are over the steps
 * since the previous `step` event; `etaSeconds` extrapolates the run's average step time.
 */
export type TrainEvent =
  | {
      type: 'start';
      job: 'retriever' | 'mlm';
      out: string;
      totalSteps: number;
      startStep: number;
      resumed: boolean;
      backend: string;
    }
  | {
      type: 'step';
      job: 'retriever' | 'mlm';
      step: number;
      totalSteps: number;
      loss: number;
      lr: number;
      gradNorm: number;
      stepsPerSecond: number;
      sequencesPerSecond: number;
      tokensPerSecond: number;
      etaSeconds: number;
    }
  | { type: 'checkpoint'; step: number; path: string }
  | { type: 'eval'; step: number; results: Record<string, number> }
  | { type: 'export'; path: string }
  /** Something the user should know that is not an error (e.g. a corrupt checkpoint passed over). */
  | { type: 'note'; message: string }
  | { type: 'done'; steps: number; finalLoss: number; seconds: number; out: string };

export type TrainEventListener = (event: TrainEvent) => void;
