// The names a phone-harness phone is made with, in one place.

/** The image a phone names: the phone harness's Android emulator (the registry row's default too). */
export const PHONE_IMAGE = "android";
