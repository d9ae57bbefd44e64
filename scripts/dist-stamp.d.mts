// Types of dist-stamp.mjs (a plain module: the build runs it with node before anything is compiled).
export declare const INPUT_DIRS: string[];
export declare const INPUT_FILES: string[];
export declare const OUTPUTS: string[];
export declare function inputsDigest(root: string): string;
export declare function distDigest(root: string): string;
/** Why dist/ under `root` is not current, or undefined when it is. */
export declare function staleness(root: string): string | undefined;
export declare function writeStamp(root: string): void;
export declare function clearStamp(root: string): void;
